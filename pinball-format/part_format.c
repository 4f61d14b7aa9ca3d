#include "part_format.h"

#include "pinball.h"
#include "rt_crc32c.h"

void part_header_encode(uint8_t out[PART_HEADER_SIZE], const uint8_t id[16], const char *name,
			enum part_codec codec)
{
	memset(out, 0, PART_HEADER_SIZE);
	memcpy(out, PART_MAGIC, PART_MAGIC_SIZE);
	put_le16(out + 8, PINBALL_FORMAT_MAJOR);
	put_le16(out + 10, PINBALL_FORMAT_MINOR);
	put_le32(out + 12, PART_HEADER_SIZE);
	memcpy(out + 16, id, 16);
	strncpy((char *)out + 32, name, PART_NAME_SIZE - 1);
	put_le32(out + 56, codec);
	put_le32(out + 60, rt_crc32c(0, out, 60));
}

void chunk_header_encode(uint8_t out[CHUNK_HEADER_SIZE], uint32_t stored, uint32_t raw,
			 uint32_t seq, const uint8_t *payload)
{
	put_le32(out, stored);
	put_le32(out + 4, raw);
	put_le32(out + 8, seq);
	put_le32(out + 12, rt_crc32c(rt_crc32c(0, out, 12), payload, stored));
}
