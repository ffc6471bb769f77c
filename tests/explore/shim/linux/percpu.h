/* SPDX-License-Identifier: GPL-2.0 */
/* The explorer's shim: everything is in ex_shim.h. */
#include "../ex_shim.h"
