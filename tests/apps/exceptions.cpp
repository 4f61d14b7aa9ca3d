// C++ exceptions: unwinding through frames (the unwinder reads the app's own code and
// .eh_frame, so return addresses on the stack must be the original ones).
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

struct Guard {
	static int live;
	Guard() { live++; }
	~Guard() { live--; }
};
int Guard::live = 0;

static int thrower(int n)
{
	Guard g;
	if (n % 7 == 3)
		throw std::runtime_error("bad " + std::to_string(n));
	if (n % 11 == 5)
		throw n;
	return n > 0 ? thrower(n - 1) + 1 : 0;
}

int main()
{
	int caught_ex = 0, caught_int = 0, ok = 0;
	std::vector<std::string> msgs;
	for (int i = 0; i < 5000; i++) {
		try {
			ok += thrower(i % 40);
		} catch (const std::exception &e) {
			caught_ex++;
			if (msgs.size() < 3)
				msgs.push_back(e.what());
		} catch (int v) {
			caught_int += v;
		}
	}
	std::printf("ok=%d ex=%d int=%d live=%d first=%s\n", ok, caught_ex, caught_int, Guard::live,
		    msgs.empty() ? "-" : msgs[0].c_str());
	return 0;
}
