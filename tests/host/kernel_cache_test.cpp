// The runtime compiler's cache trimmed to its size limit (host/src/kernel_cache.h): least
// recently used entries go first, a lookup marks an entry used, the entry just stored stays, and
// leftovers (a failed compile's source, an unnamed shared object, a dead process's work
// directory) count and go too. Fake libraries stand in for compiled ones: eviction reads sizes
// and times, not contents.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "host/src/kernel_cache.h"

namespace {
namespace fs = std::filesystem;
using metalsim::host::KernelCache;

constexpr uint64_t kLibraryBytes = 100'000;

class KernelCacheEviction : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/metalsim-cache-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    input_ = dir_ + "/../" + fs::path(dir_).filename().string() + "-input.h";
    std::ofstream(input_) << "// an input of every fake compile\n";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    fs::remove(input_, ec);
  }

  // Stores a fake library of kLibraryBytes under `key`, last used `age` ago.
  void store(const KernelCache& cache, const std::string& key, std::chrono::hours age) {
    std::string error;
    const std::string work = cache.make_work_dir(&error);
    ASSERT_FALSE(work.empty()) << error;
    const std::string library = work + "/library.so";
    std::ofstream(library) << std::string(kLibraryBytes, 'x');
    ASSERT_FALSE(cache.store(key, library, {input_}, &error).empty()) << error;
    fs::remove_all(work);
    fs::last_write_time(dir_ + "/" + key + ".inputs", fs::file_time_type::clock::now() - age);
  }

  std::string dir_, input_;
};

TEST_F(KernelCacheEviction, LeastRecentlyUsedGoFirstAndALookupMarksUse) {
  const KernelCache cache(dir_);
  store(cache, "oldest", std::chrono::hours(3));
  store(cache, "older", std::chrono::hours(2));
  store(cache, "newest", std::chrono::hours(1));
  ASSERT_FALSE(cache.lookup("oldest").empty());  // now the most recently used
  // Room for two entries: the least recently used one goes.
  EXPECT_EQ(cache.evict(2 * kLibraryBytes + kLibraryBytes / 2, "newest"), 1u);
  EXPECT_FALSE(cache.lookup("oldest").empty());
  EXPECT_TRUE(cache.lookup("older").empty());
  EXPECT_FALSE(cache.lookup("newest").empty());
  EXPECT_FALSE(fs::exists(dir_ + "/older.inputs"));
  size_t shared_objects = 0;
  for (const auto& e : fs::directory_iterator(dir_))
    shared_objects += e.path().extension() == ".so";
  EXPECT_EQ(shared_objects, 2u) << "the evicted entry's shared object is removed with it";
}

TEST_F(KernelCacheEviction, TheEntryJustStoredStaysWhateverTheLimit) {
  const KernelCache cache(dir_);
  store(cache, "a", std::chrono::hours(2));
  store(cache, "b", std::chrono::hours(5));
  EXPECT_EQ(cache.evict(0, "b"), 1u);
  EXPECT_TRUE(cache.lookup("a").empty());
  EXPECT_FALSE(cache.lookup("b").empty());
}

TEST_F(KernelCacheEviction, UnderTheLimitNothingGoes) {
  const KernelCache cache(dir_);
  store(cache, "a", std::chrono::hours(2));
  store(cache, "b", std::chrono::hours(1));
  EXPECT_EQ(cache.evict(10 * kLibraryBytes, "b"), 0u);
  EXPECT_FALSE(cache.lookup("a").empty());
}

TEST_F(KernelCacheEviction, LeftoversCountAndGoButALiveWorkDirectoryStays) {
  const KernelCache cache(dir_);
  store(cache, "entry", std::chrono::hours(1));
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(48);
  std::ofstream(dir_ + "/failed-abc.cpp") << std::string(kLibraryBytes, 'f');
  std::ofstream(dir_ + "/orphan-0123.so") << std::string(kLibraryBytes, 'o');
  fs::create_directory(dir_ + "/work-1-0");
  std::ofstream(dir_ + "/work-1-0/kernel.cpp") << std::string(kLibraryBytes, 'w');
  fs::create_directory(dir_ + "/work-2-0");  // a compile running now
  std::ofstream(dir_ + "/unrelated.txt") << "not the cache's";
  for (const char* f : {"/failed-abc.cpp", "/orphan-0123.so", "/work-1-0"})
    fs::last_write_time(dir_ + f, old);
  EXPECT_EQ(cache.evict(kLibraryBytes + kLibraryBytes / 2, "entry"), 3u);
  EXPECT_FALSE(fs::exists(dir_ + "/failed-abc.cpp"));
  EXPECT_FALSE(fs::exists(dir_ + "/orphan-0123.so"));
  EXPECT_FALSE(fs::exists(dir_ + "/work-1-0"));
  EXPECT_TRUE(fs::exists(dir_ + "/work-2-0"));
  EXPECT_TRUE(fs::exists(dir_ + "/unrelated.txt"));
  EXPECT_FALSE(cache.lookup("entry").empty());
}

TEST(KernelCacheLimit, ReadsMegabytesFromTheEnvironment) {
  setenv("METALSIM_CACHE_MAX_MB", "3", 1);
  EXPECT_EQ(KernelCache::max_bytes(), uint64_t(3) << 20);
  setenv("METALSIM_CACHE_MAX_MB", "lots", 1);
  EXPECT_EQ(KernelCache::max_bytes(), uint64_t(1024) << 20) << "an unreadable value: the default";
  unsetenv("METALSIM_CACHE_MAX_MB");
  EXPECT_EQ(KernelCache::max_bytes(), uint64_t(1024) << 20);
}

}  // namespace
