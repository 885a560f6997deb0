/* Placeholder entry point until the command layer lands. */
#include <stdio.h>
int main(void)
{
	fputs("rocmcheck: the command layer is not built yet\n", stderr);
	return 3;
}
