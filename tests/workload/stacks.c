/*
 * The program whose call chains test_stacks_ctl.sh and
 * test_export_stacks.sh make up with mkstacks: main -> a -> b or c -> hot.
 * It is not run; its symbols name the frames.
 */
#include <stdio.h>
volatile unsigned long sink;
void hot(void) { for (int i = 0; i < 1000; i++) sink += i; }
void b(void) { hot(); puts("b"); }
void c(void) { hot(); puts("c"); }
void a(int x) { if (x) b(); else c(); puts("a"); }
int main(int argc, char **argv) { (void)argv; a(argc > 1); return 0; }
