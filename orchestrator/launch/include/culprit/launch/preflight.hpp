#pragma once
// Before the first run of a sweep: each distinct command of the configurations to run can
// start. Its launcher and executable resolve (their absolute paths are reported), and a Python
// command's interpreter imports torch and culprit with the run's environment. A command that
// cannot start would fail every run the same way, one by one.

#include <string>
#include <vector>

#include "culprit/launch/launch_command.hpp"
#include "culprit/manifest/plan.hpp"

namespace culprit::launch {

// True when `executable` (a name or path) is a Python interpreter: its file name is python,
// python3, python3.11, ...
bool is_python_interpreter(const std::string& executable);

// Checks the commands of plan.configs[i] for each i in `configs` (each distinct command once).
// Returns one line per checked executable ("python3 -> /usr/bin/python3 (torch 2.1.2, culprit
// from /opt/culprit/lib/python)"). Throws culprit::UsageError naming the configuration, the
// executable and the fix, before anything is run or stored.
std::vector<std::string> preflight(const manifest::Plan& plan, const std::vector<int>& configs,
                                   const LaunchEnvironment& env);

}  // namespace culprit::launch
