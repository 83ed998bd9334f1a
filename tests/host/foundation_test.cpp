// Foundation as metal-cpp programs (MLX's Metal backend) use it, on Linux (issue 26 item 2):
// autorelease pools that release what was autoreleased into them, typed autorelease(),
// SharedPtr's conversions, strings, errors with domains, file URLs and bundles.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "metalsim/Metal.hpp"

namespace {

// Counts the live instances, so a test sees when a pool released one.
class Counted : public NS::Referencing<Counted> {
 public:
  static inline std::atomic<int> alive{0};
  Counted() { ++alive; }

 protected:
  ~Counted() override { --alive; }
};

// Autoreleases another Counted when it goes: the pool draining it must release that one too.
class Chained : public Counted {
 protected:
  ~Chained() override { (new Counted)->autorelease(); }
};

TEST(AutoreleasePool, DrainReleasesWhatWasAutoreleasedIntoIt) {
  const int before = Counted::alive;
  NS::AutoreleasePool* pool = NS::AutoreleasePool::alloc()->init();
  EXPECT_EQ(NS::AutoreleasePool::innermost(), pool);
  Counted* kept = (new Counted)->autorelease();
  kept->retain();  // the caller's own reference outlives the pool's
  for (int i = 0; i < 3; ++i) (new Counted)->autorelease();
  EXPECT_EQ(Counted::alive, before + 4);
  EXPECT_EQ(pool->pendingCount(), 4u);
  pool->drain();
  EXPECT_EQ(Counted::alive, before + 1);
  EXPECT_EQ(kept->retainCount(), 1u);
  EXPECT_EQ(NS::AutoreleasePool::innermost(), nullptr);
  kept->release();
  EXPECT_EQ(Counted::alive, before);
}

TEST(AutoreleasePool, NestedPoolsDrainInnermostFirst) {
  const int before = Counted::alive;
  NS::AutoreleasePool* outer = NS::AutoreleasePool::alloc()->init();
  (new Counted)->autorelease();
  NS::AutoreleasePool* inner = NS::AutoreleasePool::alloc()->init();
  (new Counted)->autorelease();
  (new Counted)->autorelease();
  inner->release();  // its two only
  EXPECT_EQ(Counted::alive, before + 1);
  EXPECT_EQ(NS::AutoreleasePool::innermost(), outer);
  // Closing an outer pool closes one still open inside it.
  NS::AutoreleasePool* left_open = NS::AutoreleasePool::alloc()->init();
  left_open->retain();
  (new Counted)->autorelease();
  outer->release();
  EXPECT_EQ(Counted::alive, before);
  EXPECT_EQ(NS::AutoreleasePool::innermost(), nullptr);
  left_open->release();  // already closed: nothing left to release
  EXPECT_EQ(Counted::alive, before);
}

TEST(AutoreleasePool, ObjectsAutoreleasedWhileDrainingAreReleasedToo) {
  const int before = Counted::alive;
  auto pool = NS::TransferPtr(NS::AutoreleasePool::alloc()->init());  // MLX's scoped pool
  (new Chained)->autorelease();
  EXPECT_EQ(Counted::alive, before + 1);
  pool.reset();
  EXPECT_EQ(Counted::alive, before);
}

TEST(AutoreleasePool, EachThreadHasItsOwnPools) {
  const int before = Counted::alive;
  NS::AutoreleasePool* mine = NS::AutoreleasePool::alloc()->init();
  std::thread other([] {
    EXPECT_EQ(NS::AutoreleasePool::innermost(), nullptr);
    NS::AutoreleasePool* theirs = NS::AutoreleasePool::alloc()->init();
    (new Counted)->autorelease();
    // Left open: the thread's end drains it.
    (void)theirs;
  });
  other.join();
  EXPECT_EQ(Counted::alive, before);
  EXPECT_EQ(mine->pendingCount(), 0u);
  mine->release();
}

TEST(AutoreleasePool, WithoutAPoolAutoreleasedObjectsStayAlive) {
  ASSERT_EQ(NS::AutoreleasePool::innermost(), nullptr);
  Counted* c = (new Counted)->autorelease();
  EXPECT_EQ(c->retainCount(), 1u);  // held by the bounded process-wide pool
}

TEST(Referencing, AutoreleaseKeepsTheType) {
  NS::AutoreleasePool* pool = NS::AutoreleasePool::alloc()->init();
  MTL::CompileOptions* options = MTL::CompileOptions::alloc()->init()->autorelease();
  options->setLanguageVersion(MTL::LanguageVersion3_1);
  MTL::ComputePipelineDescriptor* descriptor =
      MTL::ComputePipelineDescriptor::alloc()->init()->autorelease();
  descriptor->setSupportIndirectCommandBuffers(true);
  NS::URL* url = NS::URL::alloc()->initFileURLWithPath(MTLSTR("/tmp"))->autorelease();
  EXPECT_STREQ(url->fileSystemRepresentation(), "/tmp");
  EXPECT_EQ(pool->pendingCount(), 3u);
  pool->release();
}

TEST(SharedPtr, NullConversionsAndComparison) {
  NS::SharedPtr<NS::String> none = nullptr;
  EXPECT_FALSE(none);
  EXPECT_TRUE(none == nullptr);
  NS::String* s = NS::String::alloc()->init("x", NS::UTF8StringEncoding);
  auto a = NS::TransferPtr(s);
  NS::SharedPtr<NS::Object> base = a;  // derived to base retains
  EXPECT_EQ(s->retainCount(), 2u);
  EXPECT_TRUE(base == a);
  EXPECT_FALSE(base == nullptr);
  NS::SharedPtr<NS::Object> moved = std::move(a);
  EXPECT_EQ(s->retainCount(), 2u);
  NS::Object* raw = moved.detach();
  EXPECT_FALSE(moved);
  EXPECT_EQ(raw->retainCount(), 2u);
  raw->release();
}

TEST(String, TextLengthAppendAndCompare) {
  NS::String* hello = NS::String::string("hello ", NS::UTF8StringEncoding);
  EXPECT_EQ(hello, MTLSTR("hello "));  // interned
  EXPECT_STREQ(NS::String::string()->utf8String(), "");
  NS::AutoreleasePool* pool = NS::AutoreleasePool::alloc()->init();
  NS::String* joined = hello->stringByAppendingString(MTLSTR("w\u00f6rld \U0001F600"));
  EXPECT_STREQ(joined->utf8String(), "hello w\u00f6rld \U0001F600");
  // UTF-16 code units, as Foundation counts: the o-umlaut is one, the emoji two.
  EXPECT_EQ(joined->length(), 6u + 6u + 2u);
  EXPECT_EQ(joined->lengthOfBytes(NS::UTF8StringEncoding), 6u + 7u + 4u);
  EXPECT_TRUE(joined->isEqualToString(NS::String::string(joined)));
  EXPECT_FALSE(joined->isEqualToString(hello));
  EXPECT_EQ(hello->compare(joined), NS::OrderedAscending);
  EXPECT_EQ(joined->compare(hello), NS::OrderedDescending);
  EXPECT_EQ(hello->compare(MTLSTR("hello ")), NS::OrderedSame);
  EXPECT_STREQ(hello->cString(NS::ASCIIStringEncoding), "hello ");
  EXPECT_EQ(pool->pendingCount(), 1u);  // the appended string
  pool->release();
}

TEST(Error, DomainCodeAndDescription) {
  NS::AutoreleasePool* pool = NS::AutoreleasePool::alloc()->init();
  const NS::Object* keys[] = {NS::LocalizedDescriptionKey()};
  const NS::Object* values[] = {MTLSTR("it broke")};
  NS::Error* e =
      NS::Error::error(MTLSTR("MyDomain"), 42, NS::Dictionary::dictionary(values, keys, 1));
  EXPECT_STREQ(e->domain()->utf8String(), "MyDomain");
  EXPECT_EQ(e->code(), 42);
  EXPECT_STREQ(e->localizedDescription()->utf8String(), "it broke");
  ASSERT_NE(e->userInfo(), nullptr);
  NS::Error* plain = NS::Error::error(MTLSTR("MyDomain"), 7, nullptr);
  EXPECT_EQ(plain->localizedDescription()->str(),
            "The operation couldn\u2019t be completed. (MyDomain error 7.)");
  pool->release();
}

TEST(URL, FileURLs) {
  NS::URL* url = NS::URL::fileURLWithPath(MTLSTR("/opt/lib"));
  EXPECT_STREQ(url->fileSystemRepresentation(), "/opt/lib");
  EXPECT_STREQ(url->path()->utf8String(), "/opt/lib");
  EXPECT_STREQ(url->absoluteString()->utf8String(), "file:///opt/lib");
  EXPECT_STREQ(url->URLByAppendingPathComponent(MTLSTR("mlx.metallib"))->fileSystemRepresentation(),
               "/opt/lib/mlx.metallib");
  NS::URL* parsed = NS::URL::alloc()->init(MTLSTR("file:///a/b"));
  EXPECT_STREQ(parsed->fileSystemRepresentation(), "/a/b");
  parsed->release();
}

namespace fs = std::filesystem;

TEST(Bundle, TheMainBundleIsTheExecutablesDirectory) {
  const fs::path exe = fs::read_symlink("/proc/self/exe");
  NS::Bundle* main = NS::Bundle::mainBundle();
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main, NS::Bundle::mainBundle());
  EXPECT_EQ(main->bundlePath()->str(), exe.parent_path().string());
  EXPECT_EQ(main->resourcePath()->str(), exe.parent_path().string());
  EXPECT_STREQ(main->bundleURL()->fileSystemRepresentation(), exe.parent_path().c_str());
  EXPECT_STREQ(main->resourceURL()->fileSystemRepresentation(), exe.parent_path().c_str());
  EXPECT_EQ(main->executablePath()->str(), exe.string());
  EXPECT_EQ(main->bundleIdentifier(), nullptr);
  NS::Array* all = NS::Bundle::allBundles();
  ASSERT_EQ(all->count(), 1u);
  EXPECT_EQ(all->object<NS::Bundle>(0), main);
  EXPECT_EQ(NS::Bundle::allFrameworks()->count(), 0u);
  EXPECT_NE(main->URLForResource(MTLSTR(exe.filename().c_str()), nullptr), nullptr);
  EXPECT_EQ(main->pathForResource(MTLSTR("no-such-file"), MTLSTR("metallib")), nullptr);
}

TEST(Bundle, ABundleFromADirectory) {
  const fs::path root = fs::temp_directory_path() / ("metalsim_bundle_" + std::to_string(getpid()));
  fs::remove_all(root);
  const fs::path app = root / "mlx.bundle";
  fs::create_directories(app / "Contents" / "Resources");
  std::ofstream(app / "Contents" / "Info.plist")
      << "<?xml version=\"1.0\"?>\n<plist><dict>\n  <key>CFBundleName</key><string>x</string>\n"
         "  <key>CFBundleIdentifier</key>\n  <string>com.example.mlx</string>\n</dict></plist>\n";
  std::ofstream(app / "Contents" / "Resources" / "default.metallib") << "x";
  const fs::path flat = root / "flat";
  fs::create_directories(flat);

  NS::AutoreleasePool* pool = NS::AutoreleasePool::alloc()->init();
  NS::Bundle* b = NS::Bundle::alloc()->init(NS::String::string(app.c_str()));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->bundlePath()->str(), app.string());
  EXPECT_EQ(b->resourcePath()->str(), (app / "Contents" / "Resources").string());
  ASSERT_NE(b->bundleIdentifier(), nullptr);
  EXPECT_STREQ(b->bundleIdentifier()->utf8String(), "com.example.mlx");
  NS::URL* lib = b->URLForResource(MTLSTR("default"), MTLSTR("metallib"));
  ASSERT_NE(lib, nullptr);
  EXPECT_EQ(std::string(lib->fileSystemRepresentation()),
            (app / "Contents" / "Resources" / "default.metallib").string());
  EXPECT_EQ(b->executablePath(), nullptr);
  b->release();

  NS::Bundle* f = NS::Bundle::bundle(NS::URL::fileURLWithPath(NS::String::string(flat.c_str())));
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->resourcePath()->str(), flat.string());
  EXPECT_EQ(f->bundleIdentifier(), nullptr);
  EXPECT_EQ(NS::Bundle::bundle(NS::String::string((root / "missing").c_str())), nullptr);
  EXPECT_EQ(
      NS::Bundle::alloc()->init(NS::String::string((app / "Contents" / "Info.plist").c_str())),
      nullptr);  // a file is no bundle
  pool->release();
  fs::remove_all(root);
}

}  // namespace
