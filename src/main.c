/* rocmcheck: everything is in cli.c, so tests can link the library alone. */
#include "cli.h"

int main(int argc, char **argv)
{
	return cli_main(argc, argv);
}
