/* SPDX-License-Identifier: GPL-2.0 */
#ifndef F2_DIRECT_H
#define F2_DIRECT_H
/* f2_direct.c's trampoline, written in asm there: for its address */
void f2_direct_tramp(void);
#endif
