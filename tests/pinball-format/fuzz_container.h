/* The fuzzer's input: a whole pinball in one buffer.
 *   byte 0: flags; bit 0 asks the harness to recompute every checksum it can find, so that
 *           mutations reach the decoders behind the checks
 *   then, per part: u8 name length, the name ("meta", "pages", ...), u32 LE size, the bytes */
#ifndef PINBALL_FUZZ_CONTAINER_H
#define PINBALL_FUZZ_CONTAINER_H

#define FUZZ_FIX_CHECKSUMS 1u
#define FUZZ_NAME_MAX 32

#endif
