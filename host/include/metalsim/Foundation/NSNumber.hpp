#pragma once
// NS::Number as metal-cpp spells it: a boxed integer, floating-point or bool value (the values
// of MTL::CompileOptions::preprocessorMacros may be numbers).
#include <string>
#include <variant>

#include "metalsim/Foundation/NSObject.hpp"

namespace NS {

class Number : public Object {
 public:
  // Autoreleased, as in metal-cpp: the caller does not own them.
  static Number* number(bool value);
  static Number* number(int value);
  static Number* number(unsigned int value);
  static Number* number(long value);
  static Number* number(unsigned long value);
  static Number* number(long long value);
  static Number* number(unsigned long long value);
  static Number* number(float value);
  static Number* number(double value);

  bool boolValue() const;
  long long longLongValue() const;
  double doubleValue() const;
  // The value as Foundation prints it: 1, -3, 0.5 (bool as 1 or 0).
  String* stringValue() const;

 private:
  explicit Number(std::variant<long long, unsigned long long, double> value) : value_(value) {}
  ~Number() override = default;
  std::variant<long long, unsigned long long, double> value_;
};

}  // namespace NS
