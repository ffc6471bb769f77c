/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel primitives src/ring*.c use, for the interleaving explorer
 * (tests/explore/): every shared access (atomics, local_t, cmpxchg,
 * READ_ONCE/WRITE_ONCE) calls ex_access() first, a scheduling point of the
 * simulated CPUs (explore.c). Sequentially consistent: barriers are
 * compiler barriers only. What needs no modelling is a minimal stub.
 */
#ifndef _EX_SHIM_H
#define _EX_SHIM_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONFIG_64BIT 1
#define CONFIG_KUNIT 1

#define __ARG_PLACEHOLDER_1 0,
#define __take_second_arg(__ignored, val, ...) val
#define __is_defined(x) ___is_defined(x)
#define ___is_defined(val) ____is_defined(__ARG_PLACEHOLDER_##val)
#define ____is_defined(arg1_or_junk) __take_second_arg(arg1_or_junk 1, 0)
#define IS_ENABLED(option) __is_defined(option)

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int64_t s64;
typedef unsigned int __poll_t;
typedef unsigned int gfp_t;
/* linux/types.h's, for the structs of internal.h the ring never uses. */
struct list_head {
	struct list_head *next, *prev;
};

/* The explorer's runtime (explore.c). */
void ex_access(const volatile void *p);
void ex_cas_ok(const volatile void *p, long old, long new);
void ex_store(const volatile void *p, long v);
int ex_cpu(void);
unsigned long ex_irq_save(void);
void ex_irq_restore(unsigned long flags);
void ex_preempt(int d);
void ex_rcu(int d);
void ex_relax(void);
void ex_warn(const char *file, int line, const char *what);
bool ex_cpu_online(int cpu);
void ex_synchronize_rcu(void);
extern unsigned int nr_cpu_ids;

/* compiler.h */
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#undef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#define noinline	__attribute__((__noinline__))
#define __percpu
#define __rcu
#define barrier()	__asm__ __volatile__("" : : : "memory")
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define READ_ONCE(x) ({ ex_access(&(x)); *(const volatile __typeof__(x) *)&(x); })
#define WRITE_ONCE(x, val) do {						\
	__typeof__(x) __wo_v = (val);					\
	ex_access(&(x));						\
	*(volatile __typeof__(x) *)&(x) = __wo_v;			\
} while (0)
#define __static_assert(expr, msg, ...) _Static_assert(expr, msg)
#define static_assert(expr, ...) __static_assert(expr, ##__VA_ARGS__, #expr)

/* bits.h, minmax.h, kernel.h */
#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))
#define ALIGN(x, a)	(((x) + ((__typeof__(x))(a) - 1)) & ~((__typeof__(x))(a) - 1))
#define min(a, b)	({ __typeof__(a) __a = (a); __typeof__(b) __b = (b); __a < __b ? __a : __b; })
#define max(a, b)	({ __typeof__(a) __a = (a); __typeof__(b) __b = (b); __a > __b ? __a : __b; })
#define min_t(t, a, b)	min((t)(a), (t)(b))
#define max_t(t, a, b)	max((t)(a), (t)(b))
#define lower_32_bits(n) ((u32)((n) & 0xffffffff))
#define upper_32_bits(n) ((u32)((u64)(n) >> 32))
#define struct_size(p, member, n) (sizeof(*(p)) + (size_t)(n) * sizeof((p)->member[0]))
#define HZ		100
#define PAGE_SIZE	4096UL
#define PAGE_ALIGN(x)	ALIGN((unsigned long)(x), PAGE_SIZE)
#define KBUILD_MODNAME	"snaptrace"
#define pr_err(fmt, ...) fprintf(stderr, fmt, ##__VA_ARGS__)
#define WARN_ON_ONCE(c) ({ bool __w = !!(c); if (unlikely(__w)) ex_warn(__FILE__, __LINE__, #c); __w; })
#define WARN_ON(c)	WARN_ON_ONCE(c)
#define EXPORT_SYMBOL_GPL(s)
#define EXPORT_SYMBOL_IF_KUNIT(s)
#define ERESTARTSYS	512

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	unsigned long p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* err.h */
#define MAX_ERRNO	4095
#define IS_ERR_VALUE(x) ((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long e) { return (void *)e; }
static inline long PTR_ERR(const void *p) { return (long)p; }
static inline bool IS_ERR(const void *p) { return IS_ERR_VALUE(p); }
static inline bool IS_ERR_OR_NULL(const void *p) { return !p || IS_ERR_VALUE(p); }

/* barriers: sequentially consistent already (weak memory: litmus tests) */
#define smp_mb()		barrier()
#define smp_rmb()		barrier()
#define smp_wmb()		barrier()
#define smp_mb__before_atomic()	barrier()
#define smp_mb__after_atomic()	barrier()
#define cpu_relax()		ex_relax()
#define cond_resched()		do { } while (0)

/* compiler_attributes.h */
#define __aligned(x)	__attribute__((aligned(x)))

/* atomic.h */
typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;
typedef struct { s64 counter; } atomic64_t;

static inline int atomic_read(const atomic_t *v)
{
	ex_access(v);
	return v->counter;
}

static inline void atomic_set(atomic_t *v, int i)
{
	ex_access(v);
	v->counter = i;
}

#define atomic_set_release atomic_set

static inline void atomic_inc(atomic_t *v)
{
	ex_access(v);
	v->counter++;
}

static inline void atomic_dec(atomic_t *v)
{
	ex_access(v);
	v->counter--;
}

static inline int atomic_cmpxchg(atomic_t *v, int old, int new)
{
	int o;

	ex_access(v);
	o = v->counter;
	if (o == old) {
		v->counter = new;
		ex_cas_ok(v, old, new);
	}
	return o;
}

#define atomic_cmpxchg_acquire atomic_cmpxchg

static inline long atomic_long_read(const atomic_long_t *v)
{
	ex_access(v);
	return v->counter;
}

/* Sequentially consistent here: the orderings are the litmus tests' job. */
#define atomic_long_read_acquire atomic_long_read

static inline void atomic_long_set(atomic_long_t *v, long i)
{
	ex_access(v);
	v->counter = i;
	ex_store(v, i);
}

static inline void atomic_long_inc(atomic_long_t *v)
{
	ex_access(v);
	v->counter++;
}

static inline void atomic_long_dec(atomic_long_t *v)
{
	ex_access(v);
	v->counter--;
}

static inline long atomic_long_inc_return(atomic_long_t *v)
{
	ex_access(v);
	return ++v->counter;
}

static inline long atomic_long_cmpxchg(atomic_long_t *v, long old, long new)
{
	long o;

	ex_access(v);
	o = v->counter;
	if (o == old) {
		v->counter = new;
		ex_cas_ok(v, old, new);
	}
	return o;
}

static inline bool atomic_long_try_cmpxchg(atomic_long_t *v, long *old, long new)
{
	long o = atomic_long_cmpxchg(v, *old, new);

	if (o == *old)
		return true;
	*old = o;
	return false;
}

static inline s64 atomic64_read(const atomic64_t *v)
{
	ex_access(v);
	return v->counter;
}

static inline void atomic64_set(atomic64_t *v, s64 i)
{
	ex_access(v);
	v->counter = i;
}

static inline void atomic64_inc(atomic64_t *v)
{
	ex_access(v);
	v->counter++;
}

/* Generic cmpxchg()/cmpxchg_local()/xchg() on a scalar. */
#define cmpxchg_local(ptr, o, n) ({					\
	__typeof__(*(ptr)) __o = (o), __n = (n), __c;			\
	ex_access(ptr);							\
	__c = *(ptr);							\
	if (__c == __o)							\
		*(ptr) = __n;						\
	__c;								\
})
#define cmpxchg(ptr, o, n) cmpxchg_local(ptr, o, n)
#define xchg(ptr, n) ({							\
	__typeof__(*(ptr)) __n = (n), __c;				\
	ex_access(ptr);							\
	__c = *(ptr);							\
	*(ptr) = __n;							\
	__c;								\
})

/* asm/local.h: this CPU's contexts only */
typedef struct { atomic_long_t a; } local_t;
#define local_read(l)		atomic_long_read(&(l)->a)
#define local_set(l, i)		atomic_long_set(&(l)->a, (i))
#define local_inc(l)		atomic_long_inc(&(l)->a)
#define local_dec(l)		atomic_long_dec(&(l)->a)
#define local_inc_return(l)	atomic_long_inc_return(&(l)->a)
#define local_cmpxchg(l, o, n)	atomic_long_cmpxchg(&(l)->a, (o), (n))

/* irqflags.h, preempt.h, smp.h, hardirq.h */
#define local_irq_save(flags)	do { (flags) = ex_irq_save(); } while (0)
#define local_irq_restore(flags) ex_irq_restore(flags)
#define preempt_disable_notrace() ex_preempt(1)
#define preempt_enable_notrace() ex_preempt(-1)
#define preempt_disable()	ex_preempt(1)
#define preempt_enable()	ex_preempt(-1)
#define raw_smp_processor_id()	ex_cpu()
#define smp_processor_id()	ex_cpu()

/* cpumask.h, percpu.h */
#define for_each_possible_cpu(cpu) \
	for ((cpu) = 0; (cpu) < (int)nr_cpu_ids; (cpu)++)
#define cpu_possible(cpu)	((cpu) >= 0 && (cpu) < (int)nr_cpu_ids)
#define cpu_online(cpu)		ex_cpu_online(cpu)
#define num_possible_cpus()	nr_cpu_ids
#define cpu_to_node(cpu)	0
#define alloc_percpu(type)	((type *)calloc(nr_cpu_ids, sizeof(type)))
#define free_percpu(p)		free(p)
#define per_cpu_ptr(p, cpu)	(&(p)[(cpu)])
#define this_cpu_ptr(p)		per_cpu_ptr(p, ex_cpu())

/* rcupdate.h */
#define rcu_dereference_sched(p)	READ_ONCE(p)
#define rcu_dereference_raw(p)		READ_ONCE(p)
#define rcu_dereference_protected(p, c)	(p)
#define rcu_access_pointer(p)		READ_ONCE(p)
#define rcu_assign_pointer(p, v)	WRITE_ONCE(p, v)
#define RCU_INIT_POINTER(p, v)		((p) = (v))
#define rcu_read_lock()			ex_rcu(1)
#define rcu_read_unlock()		ex_rcu(-1)
#define synchronize_rcu()		ex_synchronize_rcu()

/* slab.h, vmalloc.h, mm.h */
#define GFP_KERNEL	0u
#define kzalloc(n, gfp)			calloc(1, (n))
#define kfree(p)			free((void *)(p))
#define kvzalloc_node(n, gfp, node)	calloc(1, (n))
#define kvzalloc(n, gfp)		calloc(1, (n))
#define kvfree(p)			free((void *)(p))
#define vzalloc_node(n, node)		calloc(1, (n))
#define vfree(p)			free((void *)(p))

/* mutex.h: readers and the changes of halves, in task context */
struct mutex {
	int owner;	/* 0, or the holder's context id */
};

void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);
#define mutex_init(m)		((m)->owner = 0)
#define mutex_destroy(m)	do { } while (0)

/* sched/clock.h */
static inline u64 local_clock(void)
{
	return 0;
}

/* irq_work.h, workqueue.h, wait.h, poll.h: the readers' wake-ups, unmodelled */
struct irq_work {
	void (*func)(struct irq_work *work);
};
#define init_irq_work(w, f)	((w)->func = (f))
static inline bool irq_work_queue(struct irq_work *w)
{
	return true;
}

static inline void irq_work_sync(struct irq_work *w)
{
}

struct work_struct {
	void (*func)(struct work_struct *work);
};
struct delayed_work {
	struct work_struct work;
};
struct workqueue_struct;
#define system_wq		((struct workqueue_struct *)NULL)
#define INIT_DELAYED_WORK(w, f)	((w)->work.func = (f))
#define to_delayed_work(w)	container_of(w, struct delayed_work, work)
static inline bool queue_delayed_work(struct workqueue_struct *wq,
				      struct delayed_work *w, unsigned long d)
{
	return true;
}

static inline bool cancel_delayed_work_sync(struct delayed_work *w)
{
	return true;
}

typedef struct {
	int unused;
} wait_queue_head_t;
#define init_waitqueue_head(q)	do { (void)(q); } while (0)
#define wake_up_all(q)		do { (void)(q); } while (0)
/* snaptrace_wait() is not explored: one look, then "timed out". */
#define wait_event_interruptible_timeout(q, cond, t) ({ (void)(cond); 0L; })

struct file;
struct poll_table_struct {
	int unused;
};
typedef struct poll_table_struct poll_table;
#define poll_wait(f, q, pt)	do { } while (0)
#define EPOLLIN		0x1
#define EPOLLRDNORM	0x40

#endif /* _EX_SHIM_H */
