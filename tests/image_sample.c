/* A tiny program that test_image reads (not runs), linked once with a
 * build-id and once without (tests/local.mk). */
int
main(void)
{
	return 0;
}
