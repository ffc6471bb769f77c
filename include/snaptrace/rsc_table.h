/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Resource table ABI of remote processor firmware, binary-compatible with
 * include/linux/remoteproc.h (struct resource_table and the fw_rsc_*
 * entries, Linux 6.12). All fields are little-endian as the remotes write
 * them; the names carry our prefix so this header can sit beside
 * <linux/remoteproc.h> on kernels that have it.
 */
#ifndef _SNAPTRACE_RSC_TABLE_H
#define _SNAPTRACE_RSC_TABLE_H

#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>

/**
 * struct snaptrace_rsc_table - firmware resource table header
 * @ver: version number, must be 1
 * @num: number of resource entries
 * @reserved: must be zero
 * @offset: @num byte offsets of the entries, from the start of the table
 *
 * Mirrors struct resource_table.
 */
struct snaptrace_rsc_table {
	u32 ver;
	u32 num;
	u32 reserved[2];
	u32 offset[];
} __packed;

/**
 * struct snaptrace_fw_rsc_hdr - header of one resource entry
 * @type: an &enum snaptrace_fw_resource_type
 * @data: the entry's body
 *
 * Mirrors struct fw_rsc_hdr.
 */
struct snaptrace_fw_rsc_hdr {
	u32 type;
	u8 data[];
} __packed;

/**
 * enum snaptrace_fw_resource_type - resource entry types
 * @SNAPTRACE_RSC_CARVEOUT: memory the host allocates for the remote
 * @SNAPTRACE_RSC_DEVMEM: device memory the remote needs mapped
 * @SNAPTRACE_RSC_TRACE: a trace buffer the remote writes its log into
 * @SNAPTRACE_RSC_VDEV: a virtio device
 * @SNAPTRACE_RSC_LAST: first unused generic type
 * @SNAPTRACE_RSC_VENDOR_START: first vendor-specific type
 * @SNAPTRACE_RSC_VENDOR_END: last vendor-specific type
 *
 * Mirrors enum fw_resource_type.
 */
enum snaptrace_fw_resource_type {
	SNAPTRACE_RSC_CARVEOUT = 0,
	SNAPTRACE_RSC_DEVMEM = 1,
	SNAPTRACE_RSC_TRACE = 2,
	SNAPTRACE_RSC_VDEV = 3,
	SNAPTRACE_RSC_LAST = 4,
	SNAPTRACE_RSC_VENDOR_START = 128,
	SNAPTRACE_RSC_VENDOR_END = 512,
};

/* "Any address": the host picks it. Mirrors FW_RSC_ADDR_ANY. */
#define SNAPTRACE_FW_RSC_ADDR_ANY (-1)

/* Length of the name fields, NUL not guaranteed. */
#define SNAPTRACE_RSC_NAME_LEN 32

/**
 * struct snaptrace_fw_rsc_carveout - physically contiguous memory request
 * @da: device address, or %SNAPTRACE_FW_RSC_ADDR_ANY
 * @pa: physical address, or %SNAPTRACE_FW_RSC_ADDR_ANY
 * @len: length in bytes
 * @flags: IOMMU protection flags
 * @reserved: must be zero
 * @name: human-readable name, not necessarily NUL-terminated
 *
 * Mirrors struct fw_rsc_carveout.
 */
struct snaptrace_fw_rsc_carveout {
	u32 da;
	u32 pa;
	u32 len;
	u32 flags;
	u32 reserved;
	u8 name[SNAPTRACE_RSC_NAME_LEN];
} __packed;

/**
 * struct snaptrace_fw_rsc_devmem - device memory mapping request
 * @da: device address
 * @pa: physical address
 * @len: length in bytes
 * @flags: IOMMU protection flags
 * @reserved: must be zero
 * @name: human-readable name, not necessarily NUL-terminated
 *
 * Mirrors struct fw_rsc_devmem.
 */
struct snaptrace_fw_rsc_devmem {
	u32 da;
	u32 pa;
	u32 len;
	u32 flags;
	u32 reserved;
	u8 name[SNAPTRACE_RSC_NAME_LEN];
} __packed;

/**
 * struct snaptrace_fw_rsc_trace - trace buffer declaration
 * @da: device address of the buffer
 * @len: length of the buffer in bytes
 * @reserved: must be zero
 * @name: human-readable name, not necessarily NUL-terminated
 *
 * Mirrors struct fw_rsc_trace.
 */
struct snaptrace_fw_rsc_trace {
	u32 da;
	u32 len;
	u32 reserved;
	u8 name[SNAPTRACE_RSC_NAME_LEN];
} __packed;

/**
 * struct snaptrace_fw_rsc_vdev_vring - vring descriptor entry
 * @da: device address, or %SNAPTRACE_FW_RSC_ADDR_ANY
 * @align: alignment between consumer and producer parts of the vring
 * @num: number of buffers
 * @notifyid: notification id
 * @pa: physical address
 *
 * Mirrors struct fw_rsc_vdev_vring.
 */
struct snaptrace_fw_rsc_vdev_vring {
	u32 da;
	u32 align;
	u32 num;
	u32 notifyid;
	u32 pa;
} __packed;

/**
 * struct snaptrace_fw_rsc_vdev - virtio device header
 * @id: virtio device id
 * @notifyid: notification id
 * @dfeatures: device features
 * @gfeatures: features acked by the host
 * @config_len: length of the config space after the vrings, in bytes
 * @status: virtio status byte
 * @num_of_vrings: number of entries in @vring
 * @reserved: must be zero
 * @vring: the vrings, then @config_len bytes of config space
 *
 * Mirrors struct fw_rsc_vdev.
 */
struct snaptrace_fw_rsc_vdev {
	u32 id;
	u32 notifyid;
	u32 dfeatures;
	u32 gfeatures;
	u32 config_len;
	u8 status;
	u8 num_of_vrings;
	u8 reserved[2];
	struct snaptrace_fw_rsc_vdev_vring vring[];
} __packed;

/* The upstream layout, field by field (include/linux/remoteproc.h). */
static_assert(sizeof(struct snaptrace_rsc_table) == 16);
static_assert(offsetof(struct snaptrace_rsc_table, num) == 4);
static_assert(offsetof(struct snaptrace_rsc_table, reserved) == 8);
static_assert(offsetof(struct snaptrace_rsc_table, offset) == 16);
static_assert(sizeof(struct snaptrace_fw_rsc_hdr) == 4);
static_assert(sizeof(struct snaptrace_fw_rsc_carveout) == 52);
static_assert(offsetof(struct snaptrace_fw_rsc_carveout, reserved) == 16);
static_assert(offsetof(struct snaptrace_fw_rsc_carveout, name) == 20);
static_assert(sizeof(struct snaptrace_fw_rsc_devmem) == 52);
static_assert(offsetof(struct snaptrace_fw_rsc_devmem, name) == 20);
static_assert(sizeof(struct snaptrace_fw_rsc_trace) == 44);
static_assert(offsetof(struct snaptrace_fw_rsc_trace, len) == 4);
static_assert(offsetof(struct snaptrace_fw_rsc_trace, reserved) == 8);
static_assert(offsetof(struct snaptrace_fw_rsc_trace, name) == 12);
static_assert(sizeof(struct snaptrace_fw_rsc_vdev_vring) == 20);
static_assert(sizeof(struct snaptrace_fw_rsc_vdev) == 24);
static_assert(offsetof(struct snaptrace_fw_rsc_vdev, status) == 20);
static_assert(offsetof(struct snaptrace_fw_rsc_vdev, num_of_vrings) == 21);
static_assert(offsetof(struct snaptrace_fw_rsc_vdev, vring) == 24);

#endif /* _SNAPTRACE_RSC_TABLE_H */
