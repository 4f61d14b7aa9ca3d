/* CRC-32C (Castagnoli): the checksum of every pinball part header and chunk, and of what a
 * recorded system call wrote. Pure: safe anywhere. */
#ifndef RT_CRC32C_H
#define RT_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continues a CRC: start with crc = 0; rt_crc32c(rt_crc32c(0, a), b) is the CRC of a then b. */
uint32_t rt_crc32c(uint32_t crc, const void *data, size_t len);

#endif
