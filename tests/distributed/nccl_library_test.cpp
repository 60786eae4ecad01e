#include "radiant/distributed/nccl_library.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "radiant/core/error.hpp"
#include "support/temp_dir.hpp"

namespace radiant::distributed {
namespace {

namespace fs = std::filesystem;

// Sets an environment variable for one scope.
class ScopedEnv {
  public:
    ScopedEnv(const char* name, const std::string& value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old, had_ = true;
        setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() { had_ ? setenv(name_, old_.c_str(), 1) : unsetenv(name_); }

  private:
    const char* name_;
    std::string old_;
    bool had_ = false;
};

void touch(const fs::path& p) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "";
}

TEST(NcclLibrary, LooksWhereUsersHaveIt) {
    test::TempDir dir;
    // A virtual environment with PyTorch's nvidia-nccl wheel, its python3 first on PATH.
    touch(dir / "venv/bin/python3");
    touch(dir / "venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2");
    const ScopedEnv given("RADIANT_NCCL", "/opt/nccl/libnccl.so.2");
    const ScopedEnv path("PATH", (dir / "venv/bin").string() + ":/usr/bin");
    const std::vector<std::string> c = NcclLibrary::candidates();
    ASSERT_GE(c.size(), 3u);
    EXPECT_EQ(c[0], "/opt/nccl/libnccl.so.2");
    EXPECT_EQ(c[1], "libnccl.so.2");
    EXPECT_EQ(c[2], (dir / "venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2").string());
}

TEST(NcclLibrary, AMissingLibrarySaysWhereItLookedAndHowToGetIt) {
    try {
        NcclLibrary::load_from({"/nowhere/libnccl.so.2"});
        FAIL() << "no error";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("/nowhere/libnccl.so.2"), std::string::npos) << m;
        EXPECT_NE(m.find("not packaged by Debian"), std::string::npos) << m;
        EXPECT_NE(m.find("RADIANT_NCCL"), std::string::npos) << m;
    }
}

TEST(NcclLibrary, ALibraryThatIsNotNcclIsNamed) {
    try {
        NcclLibrary::load_from({"libz.so.1"});
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("libz.so.1 is not NCCL 2: it has no ncclGetVersion"),
                  std::string::npos)
            << e.what();
    }
}

TEST(NcclLibrary, LoadsTheSystemsWhereThereIsOne) {
    std::shared_ptr<const NcclLibrary> lib;
    try {
        lib = NcclLibrary::load_from({"libnccl.so.2"});
    } catch (const Error& e) {
        GTEST_SKIP() << "no libnccl.so.2 on this machine's library path: " << e.what();
    }
    EXPECT_GE(lib->version(), 20700) << lib->path();
    EXPECT_NE(lib->comm_init_rank, nullptr);
    EXPECT_STREQ(std::getenv("NCCL_NVLS_ENABLE"), "0");
}

}  // namespace
}  // namespace radiant::distributed
