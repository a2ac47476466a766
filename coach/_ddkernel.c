/* coach._ddkernel: the double-dummy search of coach.double_dummy, compiled.
 *
 * This file knows no rule of Écarté. Which cards may follow a lead and who wins a
 * trick come in a table of bytes made by coach.double_dummy.kernel_tables() from
 * engine.legality (rules.follow, follower_wins, lead_mask) for one rule set and one
 * trump suit; the tests compare this kernel with the pure-Python search (which calls
 * engine.legality itself) on thousands of positions of every rule set.
 *
 * Table layout (KERNEL_TABLE_BYTES):
 *   same[32][256]  the cards of the led suit that may follow led card c, given the
 *                  follower's (non-empty) holding of that suit, as a holding byte
 *   void[32][256]  the trumps that may follow led card c, given the follower holds none
 *                  of the led suit and this (non-empty) holding of trumps
 *   wins[32][32]   1 when card d played to led card c wins the trick
 *   trump          the trump suit index (one byte)
 * With neither the led suit nor a trump, any card may follow.
 *
 * Positions: L the leader's cards, F the follower's (32-bit card masks, as in
 * engine.cards), ktl which seat must lead the `forced` card while it holds it (0 none,
 * 1 the leader, 2 the follower: german, the announced king of trumps).
 * A position's value is the number of tricks the leader takes from here with best play.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>

#define KERNEL_VERSION 1
#define SAME_OFF 0
#define VOID_OFF 8192
#define WINS_OFF 16384
#define TRUMP_OFF 17408
#define KERNEL_TABLE_BYTES 17409

#define TT_BITS 19
#define TT_SIZE (1u << TT_BITS)

typedef struct {
    uint64_t key;
    uint32_t gen;
    uint8_t ktl;
    int8_t value;
} Entry;

typedef struct {
    const uint8_t *same;
    const uint8_t *vd;
    const uint8_t *wins;
    int trump;
    uint32_t forced;
} Ctx;

static Entry *tt = NULL;
static uint32_t generation = 0;

static inline int ctz32(uint32_t x) { return __builtin_ctz(x); }
static inline int popcount32(uint32_t x) { return __builtin_popcount(x); }

static inline uint32_t follow_allowed(const Ctx *x, uint32_t F, int c) {
    int s = c >> 3;
    uint32_t held = (F >> (8 * s)) & 0xFFu;
    if (held) return (uint32_t)x->same[c * 256 + held] << (8 * s);
    uint32_t trumps = (F >> (8 * x->trump)) & 0xFFu;
    if (trumps) return (uint32_t)x->vd[c * 256 + trumps] << (8 * x->trump);
    return F;
}

static inline int swap_ktl(int ktl) { return ktl == 0 ? 0 : 3 - ktl; }

static int lead_value(const Ctx *x, uint32_t L, uint32_t F, int ktl);

/* The leader has led c (L2: his other cards): the tricks he takes from here, the follower
 * choosing; stops as soon as the follower holds him to `best` or less. */
static int follow_value(const Ctx *x, uint32_t L2, uint32_t F, int c, int ktl, int n, int best) {
    uint32_t choices = follow_allowed(x, F, c);
    int worst = 99;
    while (choices) {
        uint32_t bit = choices & (0u - choices);
        choices ^= bit;
        int d = ctz32(bit);
        uint32_t F2 = F ^ bit;
        int v;
        if (x->wins[c * 32 + d]) v = (n - 1) - lead_value(x, F2, L2, swap_ktl(ktl));
        else v = 1 + lead_value(x, L2, F2, ktl);
        if (v < worst) {
            worst = v;
            if (worst <= best) break;
        }
    }
    return worst;
}

static int lead_value(const Ctx *x, uint32_t L, uint32_t F, int ktl) {
    if (!L) return 0;
    int n = popcount32(L);
    if (n == 1) {
        int c = ctz32(L);
        int d = ctz32(F);
        return x->wins[c * 32 + d] ? 0 : 1;
    }
    uint64_t key = (uint64_t)L | ((uint64_t)F << 32);
    uint64_t h = (key ^ (uint64_t)ktl) * 0x9E3779B97F4A7C15ull;
    Entry *e = &tt[h >> (64 - TT_BITS)];
    if (e->gen == generation && e->key == key && e->ktl == (uint8_t)ktl) return e->value;
    uint32_t leads = L;
    if (ktl == 1 && (L & x->forced)) leads = x->forced;
    int best = -1;
    while (leads) {
        uint32_t bit = leads & (0u - leads);
        leads ^= bit;
        int v = follow_value(x, L ^ bit, F, ctz32(bit), ktl, n, best);
        if (v > best) {
            best = v;
            if (best == n) break;
        }
    }
    e->key = key;
    e->gen = generation;
    e->ktl = (uint8_t)ktl;
    e->value = (int8_t)best;
    return best;
}

static int start(Ctx *x, Py_buffer *tables, uint32_t forced) {
    if (tables->len != KERNEL_TABLE_BYTES) {
        PyErr_Format(PyExc_ValueError, "kernel tables must be %d bytes, got %zd", KERNEL_TABLE_BYTES, tables->len);
        return -1;
    }
    if (tt == NULL) {
        tt = (Entry *)calloc(TT_SIZE, sizeof(Entry));
        if (tt == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    const uint8_t *b = (const uint8_t *)tables->buf;
    x->same = b + SAME_OFF;
    x->vd = b + VOID_OFF;
    x->wins = b + WINS_OFF;
    x->trump = b[TRUMP_OFF] & 3;
    x->forced = forced;
    generation++;
    if (generation == 0) { /* wrapped: forget everything */
        for (uint32_t i = 0; i < TT_SIZE; i++) tt[i].gen = 0;
        generation = 1;
    }
    return 0;
}

static PyObject *k_solve(PyObject *self, PyObject *args) {
    Py_buffer tables;
    unsigned long leader, follower, forced;
    int led, ktl;
    if (!PyArg_ParseTuple(args, "y*kkiik", &tables, &leader, &follower, &led, &ktl, &forced)) return NULL;
    Ctx x;
    if (start(&x, &tables, (uint32_t)forced) < 0) {
        PyBuffer_Release(&tables);
        return NULL;
    }
    int v;
    if (led >= 0) v = follow_value(&x, (uint32_t)leader, (uint32_t)follower, led, ktl, popcount32((uint32_t)follower), -1);
    else v = lead_value(&x, (uint32_t)leader, (uint32_t)follower, ktl);
    PyBuffer_Release(&tables);
    return PyLong_FromLong(v);
}

/* histogram(tables, fixed, pool, fixed_leads, forced, king, king_lead) -> 12 counts.
 * Every hand of as many cards as `fixed` from `pool` plays against `fixed`; counts[k*6 + t]:
 * t the tricks `fixed` takes, k 1 when the other hand holds the `king` card. With king_lead,
 * whoever holds `forced` must lead it (german). */
static PyObject *k_histogram(PyObject *self, PyObject *args) {
    Py_buffer tables;
    unsigned long fixed_l, pool_l, forced, king;
    int fixed_leads, king_lead;
    if (!PyArg_ParseTuple(args, "y*kkikki", &tables, &fixed_l, &pool_l, &fixed_leads, &forced, &king, &king_lead))
        return NULL;
    Ctx x;
    if (start(&x, &tables, (uint32_t)forced) < 0) {
        PyBuffer_Release(&tables);
        return NULL;
    }
    uint32_t fixed = (uint32_t)fixed_l, pool = (uint32_t)pool_l;
    int k = popcount32(fixed), m = popcount32(pool);
    int idx[32];
    for (int i = 0, p = 0; i < 32; i++)
        if (pool >> i & 1u) idx[p++] = i;
    long long counts[12] = {0};
    if (k >= 1 && k <= m && k <= 8) {
        int pos[8];
        for (int i = 0; i < k; i++) pos[i] = i;
        for (;;) {
            uint32_t other = 0;
            for (int i = 0; i < k; i++) other |= 1u << idx[pos[i]];
            int ktl = 0;
            if (king_lead && forced) {
                if (fixed & forced) ktl = fixed_leads ? 1 : 2;
                else if (other & forced) ktl = fixed_leads ? 2 : 1;
            }
            int t;
            if (fixed_leads) t = lead_value(&x, fixed, other, ktl);
            else t = k - lead_value(&x, other, fixed, ktl);
            counts[((other & (uint32_t)king) ? 6 : 0) + t]++;
            int i = k - 1;
            while (i >= 0 && pos[i] == m - k + i) i--;
            if (i < 0) break;
            pos[i]++;
            for (int j = i + 1; j < k; j++) pos[j] = pos[j - 1] + 1;
        }
    }
    PyBuffer_Release(&tables);
    PyObject *out = PyList_New(12);
    if (out == NULL) return NULL;
    for (int i = 0; i < 12; i++) PyList_SET_ITEM(out, i, PyLong_FromLongLong(counts[i]));
    return out;
}

static PyObject *k_follow(PyObject *self, PyObject *args) {
    Py_buffer tables;
    unsigned long hand;
    int led;
    if (!PyArg_ParseTuple(args, "y*ki", &tables, &hand, &led)) return NULL;
    Ctx x;
    if (start(&x, &tables, 0) < 0) {
        PyBuffer_Release(&tables);
        return NULL;
    }
    uint32_t allowed = follow_allowed(&x, (uint32_t)hand, led & 31);
    PyBuffer_Release(&tables);
    return PyLong_FromUnsignedLong(allowed);
}

static PyMethodDef methods[] = {
    {"solve", k_solve, METH_VARARGS,
     "solve(tables, leader, follower, led, ktl, forced) -> tricks the leader takes from here"},
    {"histogram", k_histogram, METH_VARARGS,
     "histogram(tables, fixed, pool, fixed_leads, forced, king, king_lead) -> 12 counts"},
    {"follow", k_follow, METH_VARARGS, "follow(tables, hand, led) -> the cards that may follow"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_ddkernel", "The coach's double-dummy search, compiled (see coach.double_dummy).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__ddkernel(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    PyModule_AddIntConstant(m, "VERSION", KERNEL_VERSION);
    PyModule_AddIntConstant(m, "TABLE_BYTES", KERNEL_TABLE_BYTES);
    return m;
}
