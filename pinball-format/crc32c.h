/* CRC-32C (Castagnoli), the checksum of every part header and chunk. Pure: safe anywhere. */
#ifndef PINBALL_CRC32C_H
#define PINBALL_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continues a CRC: start with crc = 0; crc32c(crc32c(0, a), b) == crc32c of a then b. */
uint32_t crc32c(uint32_t crc, const void *data, size_t len);

#endif
