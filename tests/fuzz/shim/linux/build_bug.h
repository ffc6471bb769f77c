/* SPDX-License-Identifier: GPL-2.0 */
#define static_assert _Static_assert
