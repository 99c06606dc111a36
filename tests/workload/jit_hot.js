// A JavaScript program whose time goes to one function, hotJsFunction, for
// about SECONDS (argv[2], default 3) seconds of CPU: the JIT workload of
// tests/integration/test_jit_node.sh.  The function does real work (a hash
// over an array) so that the JIT cannot fold it away, and the caller does
// almost none.
'use strict';

const data = new Uint32Array(4096);
for (let i = 0; i < data.length; i++)
	data[i] = (i * 2654435761) >>> 0;

function hotJsFunction(seed) {
	let h = seed >>> 0;
	for (let r = 0; r < 64; r++)
		for (let i = 0; i < data.length; i++)
			h = (Math.imul(h ^ data[i], 16777619) + r) >>> 0;
	return h;
}

// Seconds of CPU, not of wall time: tests that run beside this one may leave
// it a small share of a CPU, and the tests count its samples.  A wall-clock
// bound of 30 times as long keeps a starved run finite.
const seconds = Number(process.argv[2] || 3);
const t0 = process.cpuUsage(), wallEnd = Date.now() + seconds * 30000;
let acc = 0, calls = 0;
for (;;) {
	const u = process.cpuUsage(t0);
	if (u.user + u.system >= seconds * 1e6 || Date.now() >= wallEnd)
		break;
	acc ^= hotJsFunction(acc + calls);
	calls++;
}
console.log(`hotJsFunction: ${calls} calls, ${acc}`);
