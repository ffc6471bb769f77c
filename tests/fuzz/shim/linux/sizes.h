/* SPDX-License-Identifier: GPL-2.0 */
#define SZ_64K 0x10000
