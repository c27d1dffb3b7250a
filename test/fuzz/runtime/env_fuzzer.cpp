//===- env_fuzzer.cpp - The environment into loadConfig -------------------===//
//
// Input: records of (variable index, value length, value bytes); each sets
// one of the variables loadConfig reads (later records win, the others are
// unset). A value reads up to its first NUL, as in a real environment. The
// same entries, plus the raw values as "NAME=value" strings, go through the
// unknown-variable check the C API runs on environ.
//
//===----------------------------------------------------------------------===//
#include "config/Config.h"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

using namespace hccl::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::vector<std::string> &names = configVariableNames();
  std::map<std::string, std::string> env;
  std::vector<std::string> entries;
  for (size_t i = 0; i + 2 <= size;) {
    const std::string &name = names[data[i] % names.size()];
    size_t len = data[i + 1];
    if (len > size - i - 2)
      len = size - i - 2;
    std::string value(reinterpret_cast<const char *>(data + i + 2), len);
    env[name] = value;
    entries.push_back(name + "=" + value);
    entries.push_back(value);
    i += 2 + len;
  }
  auto getenv = [&](const char *n) -> const char * {
    auto it = env.find(n);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  auto c = loadConfig(getenv);
  if (c)
    (void)formatConfig(*c);
  else if (c.message().empty())
    abort(); // an invalid value is an error naming it
  std::vector<const char *> envp;
  for (const auto &e : entries)
    envp.push_back(e.c_str());
  envp.push_back(nullptr);
  (void)unknownHcclVariables(envp.data());
  return 0;
}
