#pragma once
// Each `radiant` subcommand registers itself on the app; its callback throws radiant::Error on failure,
// which main() prints as one line.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace radiant::app {

void add_info_command(CLI::App& app);
void add_render_command(CLI::App& app);
void add_demo_command(CLI::App& app);
// train and eval; command_line: the program's arguments (--gpus starts the same command once per GPU)
void add_train_command(CLI::App& app, const std::vector<std::string>& command_line);
void add_bench_command(CLI::App& app);
void add_convert_command(CLI::App& app);
void add_view_command(CLI::App& app);
void add_prepare_command(CLI::App& app);

}  // namespace radiant::app
