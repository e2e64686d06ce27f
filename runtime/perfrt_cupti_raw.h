/*===- perfrt_cupti_raw.h - CUPTI's buffers kept raw (PERFCC_CUPTI_RAW) --===*
 *
 * With PERFCC_CUPTI_RAW=1 the adapter appends every activity buffer CUPTI
 * completes, byte for byte, to PROGRAM.PID.cupti.bin. Replayed through the
 * adapter's own conversion (perfrt_cupti_replay) by a machine without a GPU,
 * such a file turns what a real GPU produced into a test fixture, or into a
 * bug report that can be read where the bug is fixed. libcupti parses the
 * records, so a file is read by a libcupti of the version that wrote it.
 *
 * Layout, native byte order (x86-64 only, as CUPTI's buffers are):
 *   header  char magic[16] = "perfcc-cupti-raw" (no NUL)
 *           uint32 format (PERFRT_CUPTI_RAW_FORMAT)
 *           uint32 CUPTI's version (cuptiGetVersion) in the writing process
 *           uint64 reserved, 0
 *   frames  perfrt_cupti_raw_frame (type, 0, payload size), the payload,
 *           zeros to the next multiple of 8:
 *           BUFFER  a buffer's valid bytes, as CUPTI completed it
 *           NAME    uint64 address, then NUL-terminated text: a kernel
 *                   record's name is a pointer into the writing process's
 *                   CUPTI, meaningless elsewhere, so each pointer met in a
 *                   buffer is kept once with its text (after that buffer)
 *           Buffers are in the order they completed. A reader reads every
 *           frame before replaying, then maps each name pointer to its text.
 * A file cut short by a crash ends in a partial frame, which a reader drops.
 *
 *===----------------------------------------------------------------------===*/
#ifndef PERFRT_CUPTI_RAW_H
#define PERFRT_CUPTI_RAW_H

#include <stdint.h>

#define PERFRT_CUPTI_RAW_MAGIC "perfcc-cupti-raw"
#define PERFRT_CUPTI_RAW_FORMAT 1u

struct perfrt_cupti_raw_header {
  char magic[16];
  uint32_t format;
  uint32_t cupti_version;
  uint64_t reserved;
};

enum perfrt_cupti_raw_frame_type {
  PERFRT_CUPTI_RAW_BUFFER = 1,
  PERFRT_CUPTI_RAW_NAME = 2,
};

struct perfrt_cupti_raw_frame {
  uint32_t type; /* perfrt_cupti_raw_frame_type */
  uint32_t reserved;
  uint64_t size; /* of the payload, padding excluded */
};

#endif /* PERFRT_CUPTI_RAW_H */
