// A Java program whose time goes to one method, hotJavaMethod, for about
// SECONDS (args[0], default 3) seconds: the JIT workload of
// tests/integration/test_jit_java.sh.  The method does real work (a hash
// over an array) so that the JIT cannot fold it away.
public class JitHot {
	static int[] data = new int[4096];

	static int hotJavaMethod(int seed) {
		int h = seed;
		for (int r = 0; r < 64; r++)
			for (int i = 0; i < data.length; i++)
				h = (h ^ data[i]) * 16777619 + r;
		return h;
	}

	public static void main(String[] args) {
		double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
		for (int i = 0; i < data.length; i++)
			data[i] = i * 0x9e3779b1;
		long end = System.nanoTime() + (long)(seconds * 1e9);
		int acc = 0, calls = 0;
		while (System.nanoTime() < end) {
			acc ^= hotJavaMethod(acc + calls);
			calls++;
		}
		System.out.println("hotJavaMethod: " + calls + " calls, " + acc);
	}
}
