/* main.c: the `upframe` command: global options, `help`, and dispatch to the subcommands
 * listed in cli_commands (one cmd_<name>.c file each). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static int run_help(int argc, char **argv);

/* One line each, defined in cmd_<name>.c. */
extern const cli_command cli_cmd_upscale;
extern const cli_command cli_cmd_compare;
extern const cli_command cli_cmd_model;
extern const cli_command cli_cmd_bench;
extern const cli_command cli_cmd_render;
extern const cli_command cli_cmd_train;
extern const cli_command cli_cmd_temporal;
extern const cli_command cli_cmd_interpolate;

static const cli_command cli_cmd_help = {
    "help", run_help, "show this text, or a command's (upframe help COMMAND)",
    "usage: upframe help [COMMAND]\n"
    "\n"
    "Without COMMAND, lists the commands; with one, shows how to use it.\n"
};

/* The commands, in the order `upframe help` lists them. */
const cli_command *const cli_commands[] = {
    &cli_cmd_upscale,
    &cli_cmd_temporal,
    &cli_cmd_interpolate,
    &cli_cmd_compare,
    &cli_cmd_model,
    &cli_cmd_bench,
    &cli_cmd_render,
    &cli_cmd_train,
    &cli_cmd_help,
    NULL
};

static void print_overview(FILE *f)
{
    fprintf(f, "upframe %s: makes game frames bigger and smoother\n\n"
               "usage: upframe COMMAND [ARGS...]\n"
               "       upframe --version\n\n"
               "commands:\n", upf_version());
    for (int i = 0; cli_commands[i]; i++)
        fprintf(f, "  %-12s %s\n", cli_commands[i]->name, cli_commands[i]->summary);
    fprintf(f, "\nevery command takes -q/--quiet; those that compute take --threads N (0: one\n"
               "per CPU); upscale and compare take --max-pixels N (default 2^27); '--' ends\n"
               "the options; '-' is standard input or output.\n"
               "\nresults (measurements, JSON, the report of files written) go to stdout;\n"
               "progress (on a terminal), notes on what was chosen, warnings and errors go to\n"
               "stderr; -q keeps only errors and the results a command exists for.\n"
               "\nexit codes: 0 success, 1 usage error (bad command line), 2 bad input (a file,\n"
               "value or size that cannot be used, an output that cannot be written),\n"
               "3 internal error (out of memory, a bug). A failed or interrupted run (Ctrl-C,\n"
               "SIGTERM, SIGHUP) leaves no output behind. docs/CLI.md has the details.\n");
}

static int run_help(int argc, char **argv)
{
    if (argc < 2) {
        print_overview(stdout);
        return CLI_EXIT_OK;
    }
    if (argc > 2)
        return cli_usage("help", "takes at most one command name, got %d arguments", argc - 1);
    const cli_command *c = cli_find_command(argv[1]);
    if (!c)
        return cli_usage("help", "unknown command '%s' (see 'upframe help' for the list)", argv[1]);
    fputs(c->help, stdout);
    return CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
    /* An interrupted run removes what it made, temporaries included (cli.h). */
    cli_signals_init();
    if (argc < 2) {
        print_overview(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("upframe %s (API %d)\n", upf_version(), upf_api_version());
        return CLI_EXIT_OK;
    }
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
        return run_help(1, argv + 1);
    const cli_command *c = cli_find_command(name);
    if (!c) {
        fprintf(stderr, "upframe: unknown command '%s'\nTry 'upframe help'.\n", name);
        return CLI_EXIT_USAGE;
    }
    /* `upframe CMD --help` is the same as `upframe help CMD`. */
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(c->help, stdout);
            return CLI_EXIT_OK;
        }
    }
    return c->run(argc - 1, argv + 1);
}
