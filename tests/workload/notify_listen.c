/*
 * A stand-in for systemd's notification socket: binds a datagram UNIX
 * socket at PATH and prints every message it receives, one line per
 * assignment, until SECONDS pass without one.
 * Usage: notify_listen PATH SECONDS
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct pollfd pfd;
	char buf[4096];
	ssize_t n;
	int fd;

	if (argc != 3 || strlen(argv[1]) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "usage: notify_listen PATH SECONDS\n");
		return 2;
	}
	strcpy(sun.sun_path, argv[1]);
	if ((fd = socket(AF_UNIX, SOCK_DGRAM, 0)) == -1 ||
	    bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		perror(argv[1]);
		return 1;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, atoi(argv[2]) * 1000) == 1) {
		if ((n = recv(fd, buf, sizeof(buf) - 1, 0)) < 0)
			break;
		buf[n] = '\0';
		printf("%s\n", buf);
		fflush(stdout);
	}
	return 0;
}
