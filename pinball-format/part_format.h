/* The byte layout of a part file (docs/pinball-format.md, "Part files"). Internal.
 *
 *   file header, 64 bytes:
 *     0 magic "PINBALL\x1a" | 8 u16 major | 10 u16 minor | 12 u32 header size (64)
 *     16 id[16] | 32 part name, NUL-padded [24] | 56 u32 codec | 60 u32 crc32c(0..59)
 *   chunks, each a 16-byte header then `stored` payload bytes:
 *     0 u32 stored | 4 u32 raw | 8 u32 sequence number | 12 u32 crc32c(header 0..11, payload)
 *     raw == 0, stored == 16: the end chunk; payload u64 records, u64 raw bytes; then EOF
 *     stored == raw: payload is the raw bytes; stored < raw: the raw bytes compressed by
 *     the part's codec (PART_CODEC_LZ4: an LZ4 block; PART_CODEC_ZSTD: a zstd frame)
 *   raw bytes: records, each a protobuf varint length then that many bytes of message.
 * All integers little-endian. */
#ifndef PINBALL_PART_FORMAT_H
#define PINBALL_PART_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PART_MAGIC "PINBALL\x1a"
#define PART_MAGIC_SIZE 8
#define PART_HEADER_SIZE 64
#define PART_NAME_SIZE 24
#define CHUNK_HEADER_SIZE 16
#define END_PAYLOAD_SIZE 16
/* The largest raw chunk a writer produces and a reader accepts (so a record, which never
 * spans chunks, is at most this minus its length prefix). */
#define CHUNK_RAW_MAX (64u << 20)
/* Raw size at which a writer closes a chunk. */
#define CHUNK_TARGET_PAGES (256u << 10)
/* How a part's chunks are compressed (the header's u32 at 56). */
enum part_codec { PART_CODEC_LZ4 = 0, PART_CODEC_ZSTD = 1 };
/* zstd level of the pages part (code and data, written by a helper thread) while the app
 * runs, and once the app waits for the pinball (pinball_writer_hurry) or for the first
 * PAGES_EARLY_BYTES of records (a short program's end would wait for level 7); the other
 * parts use level 1. */
#define PAGES_ZSTD_LEVEL 7
#define PAGES_ZSTD_LEVEL_HURRIED 3
#define PAGES_EARLY_BYTES (1u << 20)
#define CHUNK_TARGET_SMALL (64u << 10)

static inline void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}
static inline void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static inline void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

/* Fills a 64-byte part header. */
void part_header_encode(uint8_t out[PART_HEADER_SIZE], const uint8_t id[16], const char *name,
			enum part_codec codec);
/* Fills a 16-byte chunk header whose crc covers it and `payload`. */
void chunk_header_encode(uint8_t out[CHUNK_HEADER_SIZE], uint32_t stored, uint32_t raw,
			 uint32_t seq, const uint8_t *payload);

#endif
