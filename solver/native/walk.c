/*
 * The solver's board walk in C: the same depth-first walk as solver/solve.py's
 * _find_marked_paths_python, loaded with ctypes by solver/native/__init__.py.
 *
 * Built by `python -m solver.native build`. Thread-safe: no global state, every call works
 * in its own stack frame and the caller's output buffers; ctypes releases the GIL during a
 * call, so solves in several threads run in parallel.
 *
 * The node table (solver/compiler.py build_node_table): rows of `width` int32 slots; slot s
 * holds the child reached by symbol s, as its row offset (> 0), -(word_id + 1) for a leaf
 * word, or 0; the last slot holds word_id + 1 if the row's own prefix is a word. A "mark"
 * is word_id + 1. Every offset read from the table is bounds-checked, so a corrupt table
 * gives an error, never a read outside it.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Bumped whenever the signature or the meaning of an argument changes. */
#define WALK_ABI 1
/* The used-cells set is a 64-bit mask. */
#define MAX_CELLS 64
/* A cell of a grid touches at most 8 others. */
#define MAX_NEIGHBOURS 8
/* Slots of the mark set kept on the stack; larger sets go to the heap. */
#define INLINE_MARKS 1024

#ifndef WALK_SOURCE_DIGEST
#define WALK_SOURCE_DIGEST ""
#endif

/* Return codes (a count of words found is >= 0). */
#define WALK_FULL (-1)      /* the output buffers are too small: grow them and call again */
#define WALK_NO_MEMORY (-2) /* the mark set could not grow */
#define WALK_BAD_INPUT (-3) /* an argument or the table is out of range */

typedef struct {
    int32_t *slots; /* 0 = empty, else a mark */
    uint32_t mask;  /* capacity - 1; capacity is a power of two */
    uint32_t count;
    int32_t inline_slots[INLINE_MARKS];
} MarkSet;

/* Where the words found go: per word its mark, the end of its path in `cells` and its
 * text (the faces of its path, UTF-8) followed by '\n' in `text`. */
typedef struct {
    int32_t *marks;
    int32_t *ends;
    int32_t max_words;
    int32_t *cells;
    int32_t max_cells;
    char *text;
    int32_t max_text;
    int32_t words;
    int32_t cells_used;
    int32_t text_used;
} Output;

typedef struct {
    const int32_t *table;
    int64_t table_slots;
    int32_t width;
    /* cells + 1 entries each: cell c's symbols are face_syms[face_start[c]..face_start[c+1]),
     * its face's text face_text[text_start[c]..text_start[c+1]), its neighbours
     * nbs[nb_start[c]..nb_start[c+1]). */
    const int32_t *face_start;
    const int32_t *face_syms;
    const int32_t *text_start;
    const char *face_text;
    const int32_t *nb_start;
    const int32_t *nbs;
    Output out;
    int status;
    MarkSet seen;
    int32_t path[MAX_CELLS];
} Walk;

int32_t boggle_walk_abi(void) { return WALK_ABI; }

/* The SHA-256 (hex) of the source this library was built from: a changed source makes it
 * stale. Python reads it from the file (after the marker) without loading the library. */
static const char source_digest[] = "boggle-walk-source-sha256=" WALK_SOURCE_DIGEST;
const char *boggle_walk_source_digest(void) { return source_digest + 26; }

static uint32_t mark_hash(int32_t mark) { return (uint32_t)mark * 2654435761u; }

/* Insert `mark`; returns 1 if it was new, 0 if already there, -1 if out of memory. */
static int mark_add(MarkSet *set, int32_t mark) {
    uint32_t i = mark_hash(mark) & set->mask;
    while (set->slots[i]) {
        if (set->slots[i] == mark) return 0;
        i = (i + 1) & set->mask;
    }
    set->slots[i] = mark;
    set->count++;
    if (set->count * 2 > set->mask) { /* keep the load under a half: short probes */
        uint32_t capacity = (set->mask + 1) * 2;
        if (capacity == 0) return -1; /* 2^32 marks: not a real word list */
        int32_t *grown = calloc(capacity, sizeof(int32_t));
        if (!grown) return -1;
        for (uint32_t k = 0; k <= set->mask; k++) {
            int32_t old = set->slots[k];
            if (!old) continue;
            uint32_t j = mark_hash(old) & (capacity - 1);
            while (grown[j]) j = (j + 1) & (capacity - 1);
            grown[j] = old;
        }
        if (set->slots != set->inline_slots) free(set->slots);
        set->slots = grown;
        set->mask = capacity - 1;
    }
    return 1;
}

/* A row offset is usable when the whole row lies inside the table. */
static int row_ok(const Walk *w, int32_t offset) {
    return offset > 0 && (int64_t)offset + w->width <= w->table_slots;
}

/* Record a word whose path is path[0..length) unless it was found before. */
static void record(Walk *w, int32_t mark, int32_t length) {
    int added = mark_add(&w->seen, mark);
    if (added <= 0) {
        if (added < 0) w->status = WALK_NO_MEMORY;
        return;
    }
    Output *out = &w->out;
    int32_t text_length = 1; /* the '\n' */
    for (int32_t i = 0; i < length; i++)
        text_length += w->text_start[w->path[i] + 1] - w->text_start[w->path[i]];
    if (out->words >= out->max_words || length > out->max_cells - out->cells_used ||
        text_length > out->max_text - out->text_used) {
        w->status = WALK_FULL;
        return;
    }
    for (int32_t i = 0; i < length; i++) {
        int32_t cell = w->path[i];
        int32_t start = w->text_start[cell], size = w->text_start[cell + 1] - start;
        out->cells[out->cells_used + i] = cell;
        if (size > 0) memcpy(out->text + out->text_used, w->face_text + start, (size_t)size);
        out->text_used += size;
    }
    out->text[out->text_used++] = '\n';
    out->cells_used += length;
    out->marks[out->words] = mark;
    out->ends[out->words] = out->cells_used;
    out->words++;
}

/* The table value reached from row `node` by the symbols of `cell`'s face (0 = none). A
 * multi-letter face needs an internal node after each letter but the last. */
static int32_t descend(Walk *w, int32_t node, int32_t cell) {
    for (int32_t i = w->face_start[cell]; i < w->face_start[cell + 1]; i++) {
        if (node <= 0) return 0;
        if (!row_ok(w, node)) {
            w->status = WALK_BAD_INPUT;
            return 0;
        }
        node = w->table[node + w->face_syms[i]];
    }
    if (node == INT32_MIN) { /* -node would overflow: no table holds it */
        w->status = WALK_BAD_INPUT;
        return 0;
    }
    return node;
}

/* Ask for a row's cache lines ahead of use (its first, middle and last slots). */
static void prefetch_row(const Walk *w, int32_t row) {
#if defined(__GNUC__)
    __builtin_prefetch(w->table + row);
    __builtin_prefetch(w->table + row + w->width / 2);
    __builtin_prefetch(w->table + row + w->width - 1);
#else
    (void)w;
    (void)row;
#endif
}

/* Read the word mark of an internal node (0 if its prefix is not a word). */
static int32_t node_mark(Walk *w, int32_t node) {
    if (!row_ok(w, node)) {
        w->status = WALK_BAD_INPUT;
        return 0;
    }
    return w->table[node + w->width - 1];
}

/* path[0..depth) ends at `cell`, whose letters led to internal row `node`. */
static void walk(Walk *w, int32_t cell, int32_t node, uint64_t used, int32_t depth) {
    /* First every neighbour's child, prefetching their rows, then the walk into each: the
     * table is far larger than the caches, and the rows' cache misses then overlap
     * instead of coming one after another. Same order and answers as one pass. */
    int32_t children[MAX_NEIGHBOURS], next_cells[MAX_NEIGHBOURS];
    int32_t count = 0;
    for (int32_t k = w->nb_start[cell]; k < w->nb_start[cell + 1]; k++) {
        int32_t nb = w->nbs[k];
        if ((used >> nb) & 1 || w->face_start[nb] == w->face_start[nb + 1]) continue;
        int32_t child = descend(w, node, nb);
        if (w->status) return;
        if (!child) continue;
        if (row_ok(w, child)) prefetch_row(w, child);
        children[count] = child;
        next_cells[count++] = nb;
    }
    for (int32_t i = 0; i < count && !w->status; i++) {
        int32_t child = children[i], nb = next_cells[i];
        w->path[depth] = nb;
        if (child > 0) {
            int32_t mark = node_mark(w, child);
            if (mark) record(w, mark, depth + 1);
            if (!w->status) walk(w, nb, child, used | (uint64_t)1 << nb, depth + 1);
        } else {
            record(w, -child, depth + 1);
        }
    }
}

/* Offsets into another array: start at 0, never decrease, end within `limit`. */
static int offsets_ok(const int32_t *start, int32_t cells, int32_t limit) {
    if (start[0] != 0) return 0;
    for (int32_t c = 0; c < cells; c++)
        if (start[c + 1] < start[c]) return 0;
    return start[cells] <= limit;
}

/* Check the board arguments once, so that the walk can trust them. */
static int inputs_ok(const Walk *w, int32_t cells, int32_t syms, int32_t text_bytes,
                     int32_t nb_count) {
    if (cells < 0 || cells > MAX_CELLS || w->width < 2 || w->table_slots < 0) return 0;
    if (!offsets_ok(w->face_start, cells, syms) || !offsets_ok(w->text_start, cells, text_bytes) ||
        !offsets_ok(w->nb_start, cells, nb_count))
        return 0;
    for (int32_t i = 0; i < w->face_start[cells]; i++)
        if (w->face_syms[i] < 0 || w->face_syms[i] >= w->width - 1) return 0;
    for (int32_t c = 0; c < cells; c++) {
        if (w->nb_start[c + 1] - w->nb_start[c] > MAX_NEIGHBOURS) return 0;
        for (int32_t i = w->nb_start[c]; i < w->nb_start[c + 1]; i++)
            if (w->nbs[i] < 0 || w->nbs[i] >= cells || w->nbs[i] == c) return 0;
    }
    return 1;
}

/*
 * Find every word on a board: for each word, its mark, the first path that spells it and
 * its text, in the order of solve.py (start cells in index order, neighbours in the given
 * order).
 *
 * Board: `cells` cells; face_start/face_syms (`syms` symbols), text_start/face_text
 * (`text_bytes` bytes) and nb_start/nbs (`nb_count` neighbours) as in Walk. A cell with no
 * symbols is never used (blocked, or a letter outside the alphabet).
 *
 * Output: word i's mark in out_marks[i], its path in out_cells[out_ends[i-1]..out_ends[i])
 * (out_ends[-1] taken as 0), its text then '\n' next in out_text (*out_text_used bytes in
 * all). Returns the number of words, or WALK_FULL when a max_* bound is too small (nothing
 * past any bound is written), WALK_NO_MEMORY, or WALK_BAD_INPUT for arguments or a table
 * out of range.
 */
int32_t boggle_walk_board(const int32_t *table, int64_t table_slots, int32_t root,
                          int32_t width, int32_t cells, const int32_t *face_start,
                          const int32_t *face_syms, int32_t syms, const int32_t *text_start,
                          const char *face_text, int32_t text_bytes, const int32_t *nb_start,
                          const int32_t *nbs, int32_t nb_count, int32_t *out_marks,
                          int32_t *out_ends, int32_t max_words, int32_t *out_cells,
                          int32_t max_cells, char *out_text, int32_t max_text,
                          int32_t *out_text_used) {
    Walk w;
    w.table = table;
    w.table_slots = table_slots;
    w.width = width;
    w.face_start = face_start;
    w.face_syms = face_syms;
    w.text_start = text_start;
    w.face_text = face_text;
    w.nb_start = nb_start;
    w.nbs = nbs;
    w.out.marks = out_marks;
    w.out.ends = out_ends;
    w.out.max_words = max_words < 0 ? 0 : max_words;
    w.out.cells = out_cells;
    w.out.max_cells = max_cells < 0 ? 0 : max_cells;
    w.out.text = out_text;
    w.out.max_text = max_text < 0 ? 0 : max_text;
    w.out.words = w.out.cells_used = w.out.text_used = 0;
    w.status = 0;
    if (!inputs_ok(&w, cells, syms, text_bytes, nb_count) || !row_ok(&w, root))
        return WALK_BAD_INPUT;
    memset(w.seen.inline_slots, 0, sizeof w.seen.inline_slots);
    w.seen.slots = w.seen.inline_slots;
    w.seen.mask = INLINE_MARKS - 1;
    w.seen.count = 0;

    for (int32_t cell = 0; cell < cells && !w.status; cell++) {
        if (face_start[cell] == face_start[cell + 1]) continue; /* blocked or unspellable */
        int32_t child = descend(&w, root, cell);
        if (w.status) break;
        w.path[0] = cell;
        int32_t mark = child > 0 ? node_mark(&w, child) : -child;
        if (mark) record(&w, mark, 1);
        if (child > 0 && !w.status) walk(&w, cell, child, (uint64_t)1 << cell, 1);
    }
    if (w.seen.slots != w.seen.inline_slots) free(w.seen.slots);
    *out_text_used = w.out.text_used;
    return w.status ? w.status : w.out.words;
}
