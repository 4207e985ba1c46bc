/* main.c: the `upframe` command: dispatches subcommands. */
#include <stdio.h>
#include <string.h>

#include "upframe.h"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("upframe %s\n", upf_version());
        return 0;
    }
    fprintf(stderr, "usage: upframe --version\n");
    return 1;
}
