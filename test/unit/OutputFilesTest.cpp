// The output folder and its files: checked at start-up, and a shared folder
// (/tmp) is no attack path: a link planted where an output file will go is
// refused, never written through, and a file already there is reused only
// when it is a regular file of this user.
#include "perfrt_output_files.h"
#include "perfrt_runtime.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace perfrt;

namespace {

class OutputFiles : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/perfrt-output-files.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
  }
  void TearDown() override {
    std::string command = "rm -rf '" + dir + "'";
    ASSERT_EQ(std::system(command.c_str()), 0);
  }
  std::string read(const std::string &path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  void setOut(const std::string &out) {
    ASSERT_TRUE(FlagKinds::Path::parse(out.c_str(), gRt.flags.out));
  }
  std::string dir;
};

TEST_F(OutputFiles, StartUpCreatesTheFolderAndItsParents) {
  setOut(dir + "/a/b/c");
  EXPECT_EQ(checkOutputDir(), "");
  struct stat st;
  ASSERT_EQ(stat((dir + "/a/b/c").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  // The probe file it created to be sure is gone again.
  std::string command = "test -z \"$(ls -A '" + dir + "/a/b/c')\"";
  EXPECT_EQ(std::system(command.c_str()), 0);
}

TEST_F(OutputFiles, AFolderThatCannotBeMadeOrWrittenIsOneLineNamingIt) {
  setOut("/proc/nope");
  EXPECT_EQ(checkOutputDir(),
            "perfcc: PERFCC_OUT='/proc/nope': cannot create the folder: No "
            "such file or directory (no output could be written; nothing ran)");
  // A folder that exists but takes no files (root too cannot write /proc).
  setOut("/proc/self");
  EXPECT_NE(checkOutputDir().find("PERFCC_OUT='/proc/self': cannot create a "
                                  "file in the folder"),
            std::string::npos);
  // A path through a regular file.
  std::ofstream(dir + "/file") << "x";
  setOut(dir + "/file");
  EXPECT_NE(checkOutputDir().find("cannot create the folder"),
            std::string::npos);
}

TEST_F(OutputFiles, ALinkPlantedWhereTheFileGoesIsRefused) {
  std::string victim = dir + "/victim", link = dir + "/prog.1.trace.json";
  std::ofstream(victim) << "precious";
  ASSERT_EQ(symlink(victim.c_str(), link.c_str()), 0);
  errno = 0;
  EXPECT_EQ(openOutputFile(link.c_str(), 0644, false), -1);
  EXPECT_EQ(errno, ELOOP);
  EXPECT_EQ(read(victim), "precious");
}

TEST_F(OutputFiles, AFolderOrFifoWhereTheFileGoesIsRefused) {
  std::string sub = dir + "/prog.1.summary.json";
  ASSERT_EQ(mkdir(sub.c_str(), 0755), 0);
  EXPECT_EQ(openOutputFile(sub.c_str(), 0644, false), -1);
  std::string fifo = dir + "/prog.1.trace.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  // O_NONBLOCK is not asked for: a fifo without a reader would block the
  // open, so the test opens a reader first.
  int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  errno = 0;
  EXPECT_EQ(openOutputFile(fifo.c_str(), 0644, false), -1);
  EXPECT_EQ(errno, EINVAL);
  ::close(reader);
}

TEST_F(OutputFiles, ALeftoverOfThisUserIsReusedFromTheStart) {
  std::string path = dir + "/prog.1.summary.json";
  std::ofstream(path) << "an older run's much longer summary";
  int fd = openOutputFile(path.c_str(), 0644, false);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "new", 3), 3);
  ::close(fd);
  EXPECT_EQ(read(path), "new");
}

TEST_F(OutputFiles, NewFilesGetTheAskedPermissions) {
  std::string path = dir + "/.prog.1.spans";
  mode_t old = umask(0);
  int fd = openOutputFile(path.c_str(), 0600, true);
  umask(old);
  ASSERT_GE(fd, 0);
  ::close(fd);
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

} // namespace
