//===- config_env.h - A fake environment for the config tests ---*- C++ -*-===//
#ifndef HCCL_TEST_RUNTIME_CONFIG_ENV_H
#define HCCL_TEST_RUNTIME_CONFIG_ENV_H

#include "config/Config.h"

#include <map>
#include <string>

namespace cfgtest {

/// loadConfig over exactly these variables (nothing from the real process
/// environment leaks in).
inline hccl::sched::Result<hccl::rt::Config>
load(const std::map<std::string, std::string> &vars) {
  return hccl::rt::loadConfig([&](const char *name) -> const char * {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

} // namespace cfgtest

#endif // HCCL_TEST_RUNTIME_CONFIG_ENV_H
