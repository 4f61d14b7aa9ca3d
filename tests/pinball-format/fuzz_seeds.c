/* pinball_fuzz_seeds DIR: writes seed inputs for fuzz_reader (fuzz_container.h): the
 * synthetic pinball and an empty one, each with and without the fix-checksums flag. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_container.h"
#include "part_format.h"
#include "synth.h"

/* Packs every file dir/p.* into the container. */
static int pack(const char *dir, const char *out, unsigned flags)
{
	FILE *o = fopen(out, "wb");
	DIR *d = opendir(dir);
	if (!o || !d)
		return -1;
	fputc((int)flags, o);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "p.", 2) != 0)
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "rb");
		if (!f)
			return -1;
		static uint8_t buf[1 << 20];
		size_t len = fread(buf, 1, sizeof buf, f);
		fclose(f);
		const char *name = e->d_name + 2;
		uint8_t size[4];
		put_le32(size, (uint32_t)len);
		fputc((int)strlen(name), o);
		fputs(name, o);
		fwrite(size, 1, 4, o);
		fwrite(buf, 1, len, o);
	}
	closedir(d);
	return fclose(o);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: pinball_fuzz_seeds DIR\n");
		return 2;
	}
	char err[PINBALL_ERR_MAX], base[1024], out[1024];
	for (int kind = 0; kind < 2; kind++) {
		char *tmp = synth_tmpdir();
		snprintf(base, sizeof base, "%s/p", tmp);
		int ok;
		if (kind == 0) {
			ok = synth_write(base, err);
		} else {
			struct pinball_header h = {.tool_version = "seed", .page_size = 4096};
			struct pinball_writer *w = pinball_writer_create(base, &h, err);
			ok = w ? pinball_writer_finish(w, NULL) : -1;
			if (w && ok < 0)
				snprintf(err, sizeof err, "%s", pinball_writer_error(w));
			pinball_writer_free(w);
		}
		for (unsigned flags = 0; ok == 0 && flags < 2; flags++) {
			snprintf(out, sizeof out, "%s/seed-%s-%u", argv[1],
				 kind ? "empty" : "synth", flags);
			ok = pack(tmp, out, flags);
			if (ok < 0)
				snprintf(err, sizeof err, "%.400s: cannot write", out);
		}
		synth_rmdir(tmp);
		if (ok < 0) {
			fprintf(stderr, "pinball_fuzz_seeds: error: %s\n", err);
			return 1;
		}
	}
	return 0;
}
