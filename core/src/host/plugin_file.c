/* Static checks of a plugin file: ELF headers, bounds, the entry's header. */
#include "host/plugin_file.h"
#include "host/host.h"

#include <workbench/workbench.h>

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bounds on what a plugin may ask the checker to read. */
#define MAX_TABLE_BYTES (64u << 20)

typedef struct elf_file {
    const char *path;
    int fd;
    uint64_t size;
} elf_file;

static int refuse(const elf_file *f, const char *why)
{
    host_error("plugin file '%s' could not be loaded: %s", f->path, why);
    return -1;
}

/* [offset, offset + length) inside the file, without overflow. */
static int inside(const elf_file *f, uint64_t offset, uint64_t length)
{
    return offset <= f->size && length <= f->size - offset;
}

static int read_at(const elf_file *f, void *out, uint64_t length, uint64_t offset)
{
    if (!inside(f, offset, length))
        return -1;
    char *p = out;
    while (length > 0) {
        ssize_t n = pread(f->fd, p, length, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1; /* the file shrank under us */
        p += n, offset += (uint64_t)n, length -= (uint64_t)n;
    }
    return 0;
}

static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    return "not a regular file";
}

/* This process's own ELF machine, which a plugin must match. */
static int host_machine(void)
{
    static int machine = -1;
    if (machine >= 0)
        return machine;
    machine = 0;
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    ElfW(Ehdr) own;
    if (fd >= 0 && pread(fd, &own, sizeof own, 0) == (ssize_t)sizeof own &&
        memcmp(own.e_ident, ELFMAG, SELFMAG) == 0)
        machine = own.e_machine;
    if (fd >= 0)
        close(fd);
    return machine;
}

static int check_header(const elf_file *f, const ElfW(Ehdr) *e)
{
    static const unsigned char host_class = sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32;
    const union { uint16_t word; unsigned char byte[2]; } probe = {0x0102};
    const unsigned char host_data = probe.byte[0] == 0x02 ? ELFDATA2LSB : ELFDATA2MSB;
    char why[160];
    if (memcmp(e->e_ident, ELFMAG, SELFMAG) != 0)
        return refuse(f, "not an ELF file");
    if (e->e_ident[EI_CLASS] != host_class)
        return refuse(f, sizeof(void *) == 8 ? "a 32-bit ELF file; this host is 64-bit"
                                             : "a 64-bit ELF file; this host is 32-bit");
    if (e->e_ident[EI_DATA] != host_data)
        return refuse(f, "an ELF file of the other byte order");
    if (e->e_ident[EI_VERSION] != EV_CURRENT || e->e_version != EV_CURRENT)
        return refuse(f, "an ELF file of an unknown version");
    if (e->e_type != ET_DYN)
        return refuse(f, e->e_type == ET_EXEC ? "an executable, not a shared object"
                         : e->e_type == ET_REL ? "an object file (.o), not a shared object"
                                               : "not a shared object");
    if (host_machine() && e->e_machine != host_machine()) {
        snprintf(why, sizeof why, "built for another machine (ELF machine %u; this host is %d)",
                 e->e_machine, host_machine());
        return refuse(f, why);
    }
    if (e->e_ehsize != sizeof *e || e->e_phentsize != sizeof(ElfW(Phdr)) || e->e_phnum == 0 ||
        (e->e_shnum > 0 && e->e_shentsize != sizeof(ElfW(Shdr))))
        return refuse(f, "its ELF header is malformed (header sizes)");
    if (!inside(f, e->e_phoff, (uint64_t)e->e_phnum * sizeof(ElfW(Phdr))) ||
        !inside(f, e->e_shoff, (uint64_t)e->e_shnum * sizeof(ElfW(Shdr)))) {
        snprintf(why, sizeof why, "truncated: its headers reach beyond its %llu bytes (a "
                 "half-copied install or a build still writing?)",
                 (unsigned long long)f->size);
        return refuse(f, why);
    }
    return 0;
}

static int check_segments(const elf_file *f, const ElfW(Phdr) *ph, int n)
{
    int loads = 0, dynamic = 0;
    char why[200];
    for (int i = 0; i < n; i++) {
        if (ph[i].p_type != PT_LOAD && ph[i].p_type != PT_DYNAMIC)
            continue;
        if (!inside(f, ph[i].p_offset, ph[i].p_filesz)) {
            snprintf(why, sizeof why, "truncated: segment %d needs bytes up to %llu, the file "
                     "has %llu (a half-copied install or a build still writing?)", i,
                     (unsigned long long)ph[i].p_offset + ph[i].p_filesz,
                     (unsigned long long)f->size);
            return refuse(f, why);
        }
        if (ph[i].p_type == PT_LOAD) {
            if (ph[i].p_filesz > ph[i].p_memsz)
                return refuse(f, "a loadable segment is larger in the file than in memory");
            loads++;
        } else {
            dynamic++;
        }
    }
    if (!loads || !dynamic)
        return refuse(f, "an ELF file without loadable or dynamic segments");
    return 0;
}

/* The file offset of the virtual address range [v, v + n), or -1. */
static int64_t file_offset(const ElfW(Phdr) *ph, int count, uint64_t v, uint64_t n)
{
    for (int i = 0; i < count; i++)
        if (ph[i].p_type == PT_LOAD && v >= ph[i].p_vaddr && n <= ph[i].p_filesz &&
            v - ph[i].p_vaddr <= ph[i].p_filesz - n)
            return (int64_t)(ph[i].p_offset + (v - ph[i].p_vaddr));
    return -1;
}

/* Looks the entry symbol up in the dynamic symbol table and reads its
 * first four members.  1 found, 0 absent, -1 refused. */
static int read_entry(const elf_file *f, const ElfW(Ehdr) *e, const ElfW(Phdr) *ph,
                      plugin_file_info *info)
{
    if (e->e_shnum == 0)
        return 1; /* no section table (stripped to the bone): the probe decides */
    ElfW(Shdr) *sh = malloc((size_t)e->e_shnum * sizeof *sh);
    if (!sh)
        return refuse(f, "out of memory");
    int result = 0;
    char *names = NULL;
    ElfW(Sym) *symbols = NULL;
    if (read_at(f, sh, (uint64_t)e->e_shnum * sizeof *sh, e->e_shoff) != 0) {
        result = refuse(f, "its section table cannot be read");
        goto done;
    }
    for (int i = 0; i < e->e_shnum && result == 0; i++) {
        if (sh[i].sh_type != SHT_DYNSYM)
            continue;
        if (sh[i].sh_link >= e->e_shnum || sh[i].sh_size > MAX_TABLE_BYTES ||
            sh[i].sh_entsize != sizeof(ElfW(Sym)) ||
            sh[sh[i].sh_link].sh_size > MAX_TABLE_BYTES ||
            !inside(f, sh[i].sh_offset, sh[i].sh_size) ||
            !inside(f, sh[sh[i].sh_link].sh_offset, sh[sh[i].sh_link].sh_size)) {
            result = refuse(f, "its dynamic symbol table is malformed or truncated");
            break;
        }
        const ElfW(Shdr) *strtab = &sh[sh[i].sh_link];
        size_t count = sh[i].sh_size / sizeof(ElfW(Sym));
        symbols = malloc(sh[i].sh_size + 1);
        names = malloc(strtab->sh_size + 1);
        if (!symbols || !names || read_at(f, symbols, sh[i].sh_size, sh[i].sh_offset) != 0 ||
            read_at(f, names, strtab->sh_size, strtab->sh_offset) != 0) {
            result = refuse(f, "its dynamic symbol table cannot be read");
            break;
        }
        names[strtab->sh_size] = '\0';
        for (size_t k = 0; k < count; k++) {
            const ElfW(Sym) *s = &symbols[k];
            if (s->st_name >= strtab->sh_size || s->st_shndx == SHN_UNDEF ||
                strcmp(names + s->st_name, WB_ENTRY_SYMBOL) != 0)
                continue;
            uint32_t header[4];
            int64_t at = file_offset(ph, e->e_phnum, s->st_value, sizeof header);
            if (ELF64_ST_TYPE(s->st_info) != STT_OBJECT || s->st_size < sizeof header || at < 0 ||
                read_at(f, header, sizeof header, (uint64_t)at) != 0) {
                result = refuse(f, "its entry symbol '" WB_ENTRY_SYMBOL "' is not initialised "
                                   "data of a wb_plugin_entry");
                break;
            }
            info->entry_read = 1;
            info->abi_major = header[0], info->abi_minor = header[1];
            info->struct_size = header[2], info->kind = header[3];
            result = 1;
            break;
        }
        free(symbols);
        free(names);
        symbols = NULL, names = NULL;
    }
    if (result == 0)
        host_error("plugin file '%s' does not export the symbol '%s' (is it a workbench "
                   "plugin?)", f->path, WB_ENTRY_SYMBOL);
done:
    free(symbols);
    free(names);
    free(sh);
    return result;
}

/* ---- the dynamic section -----------------------------------------------------
 * The dynamic loader trusts every index and address the dynamic section
 * gives: a symbol or version index past its table, a relocation aimed
 * outside the object, a hash chain running off its table make it read or
 * write wherever they point, and what it then does depends on memory it
 * should never have touched (a test process and the host can disagree).
 * So each table the loader walks is read here and checked against its
 * bounds first. */

#define MAX_DYNAMIC_ENTRIES 4096

typedef struct dynamic_info {
    uint64_t strtab, strsz, symtab, syment;
    uint64_t rela, relasz, relaent, rel, relsz, relent, jmprel, pltrelsz, pltrel;
    uint64_t versym, verneed, verneednum, verdef, verdefnum;
    uint64_t init, fini, init_array, init_arraysz, fini_array, fini_arraysz;
    uint64_t hash, gnu_hash;
    int has_init, has_fini, has_versym, has_verneed, has_verdef, has_hash, has_gnu_hash;
} dynamic_info;

typedef struct elf_image {
    const elf_file *f;
    const ElfW(Phdr) *ph;
    int phnum;
} elf_image;

/* Reads `length` bytes at virtual address `v` (they must lie in the file
 * part of a loadable segment) into a fresh buffer; NULL if they do not. */
static void *read_virtual(const elf_image *im, uint64_t v, uint64_t length)
{
    if (length > MAX_TABLE_BYTES)
        return NULL;
    int64_t at = file_offset(im->ph, im->phnum, v, length);
    void *buf = malloc(length ? length : 1);
    if (at < 0 || !buf || read_at(im->f, buf, length, (uint64_t)at) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* The same into the caller's buffer, for the small fixed-size records. */
static int read_virtual_to(const elf_image *im, void *out, uint64_t v, uint64_t length)
{
    int64_t at = file_offset(im->ph, im->phnum, v, length);
    return at >= 0 && read_at(im->f, out, length, (uint64_t)at) == 0 ? 0 : -1;
}

/* [v, v + n) inside the memory image of one loadable segment, which must
 * be executable when `exec` is set. */
static int in_segment(const elf_image *im, uint64_t v, uint64_t n, int exec)
{
    for (int i = 0; i < im->phnum; i++) {
        const ElfW(Phdr) *p = &im->ph[i];
        if (p->p_type == PT_LOAD && (!exec || (p->p_flags & PF_X)) && v >= p->p_vaddr &&
            n <= p->p_memsz && v - p->p_vaddr <= p->p_memsz - n)
            return 1;
    }
    return 0;
}

static int read_dynamic(const elf_image *im, dynamic_info *d, uint64_t *needed, int *n_needed)
{
    const ElfW(Phdr) *dyn = NULL;
    for (int i = 0; i < im->phnum; i++)
        if (im->ph[i].p_type == PT_DYNAMIC)
            dyn = &im->ph[i];
    uint64_t count = dyn->p_filesz / sizeof(ElfW(Dyn));
    if (count > MAX_DYNAMIC_ENTRIES)
        return refuse(im->f, "its dynamic section is implausibly long");
    ElfW(Dyn) *entries = malloc((count ? count : 1) * sizeof *entries);
    if (!entries || read_at(im->f, entries, count * sizeof *entries, dyn->p_offset) != 0) {
        free(entries);
        return refuse(im->f, "its dynamic section cannot be read");
    }
    memset(d, 0, sizeof *d);
    *n_needed = 0;
    int ended = 0;
    for (uint64_t i = 0; i < count && !ended; i++) {
        uint64_t v = entries[i].d_un.d_val;
        switch (entries[i].d_tag) {
        case DT_NULL: ended = 1; break;
        case DT_NEEDED: case DT_SONAME: case DT_RPATH: case DT_RUNPATH:
            if (*n_needed < MAX_DYNAMIC_ENTRIES)
                needed[(*n_needed)++] = v;
            break;
        case DT_STRTAB: d->strtab = v; break;
        case DT_STRSZ: d->strsz = v; break;
        case DT_SYMTAB: d->symtab = v; break;
        case DT_SYMENT: d->syment = v; break;
        case DT_RELA: d->rela = v; break;
        case DT_RELASZ: d->relasz = v; break;
        case DT_RELAENT: d->relaent = v; break;
        case DT_REL: d->rel = v; break;
        case DT_RELSZ: d->relsz = v; break;
        case DT_RELENT: d->relent = v; break;
        case DT_JMPREL: d->jmprel = v; break;
        case DT_PLTRELSZ: d->pltrelsz = v; break;
        case DT_PLTREL: d->pltrel = v; break;
        case DT_VERSYM: d->versym = v, d->has_versym = 1; break;
        case DT_VERNEED: d->verneed = v, d->has_verneed = 1; break;
        case DT_VERNEEDNUM: d->verneednum = v; break;
        case DT_VERDEF: d->verdef = v, d->has_verdef = 1; break;
        case DT_VERDEFNUM: d->verdefnum = v; break;
        case DT_INIT: d->init = v, d->has_init = 1; break;
        case DT_FINI: d->fini = v, d->has_fini = 1; break;
        case DT_INIT_ARRAY: d->init_array = v; break;
        case DT_INIT_ARRAYSZ: d->init_arraysz = v; break;
        case DT_FINI_ARRAY: d->fini_array = v; break;
        case DT_FINI_ARRAYSZ: d->fini_arraysz = v; break;
        case DT_HASH: d->hash = v, d->has_hash = 1; break;
        case DT_GNU_HASH: d->gnu_hash = v, d->has_gnu_hash = 1; break;
        case DT_TEXTREL:
            free(entries);
            return refuse(im->f, "it asks for relocations in its code (DT_TEXTREL)");
        default: break;
        }
    }
    free(entries);
    if (!ended)
        return refuse(im->f, "its dynamic section has no end (DT_NULL)");
    if (!d->strtab || !d->symtab || !d->strsz || d->syment != sizeof(ElfW(Sym)))
        return refuse(im->f, "its dynamic section lacks a well-formed symbol or string table");
    return 0;
}

static int string_ok(uint64_t offset, const char *strings, uint64_t size)
{
    return offset < size && memchr(strings + offset, '\0', size - offset) != NULL;
}

/* The number of dynamic symbols: from the section table, else from the
 * SysV hash table, else from the distance to the string table that the
 * linker places after it; 0 when nothing tells. */
static uint64_t symbol_count(const elf_image *im, const ElfW(Ehdr) *e, const dynamic_info *d)
{
    if (e->e_shnum > 0) {
        ElfW(Shdr) *sh = malloc((size_t)e->e_shnum * sizeof *sh);
        uint64_t n = 0;
        if (sh && read_at(im->f, sh, (uint64_t)e->e_shnum * sizeof *sh, e->e_shoff) == 0)
            for (int i = 0; i < e->e_shnum; i++)
                if (sh[i].sh_type == SHT_DYNSYM && sh[i].sh_addr == d->symtab)
                    n = sh[i].sh_size / sizeof(ElfW(Sym));
        free(sh);
        if (n)
            return n;
    }
    if (d->has_hash) {
        uint32_t header[2];
        if (read_virtual_to(im, header, d->hash, sizeof header) == 0 && header[1])
            return header[1];
    }
    return d->strtab > d->symtab ? (d->strtab - d->symtab) / sizeof(ElfW(Sym)) : 0;
}

/* Every relocation writes inside the object's own image, names a symbol
 * of its table and, where it is the address of an initialiser or
 * finaliser, points into code. */
static int check_relocations(const elf_image *im, const dynamic_info *d, uint64_t nsym,
                             uint64_t table, uint64_t size, uint64_t entsize, int rela)
{
    if (!size)
        return 0;
    uint64_t want = rela ? sizeof(ElfW(Rela)) : sizeof(ElfW(Rel));
    if (entsize != want || size % want)
        return refuse(im->f, "its relocation table is malformed (entry size)");
    unsigned char *buf = read_virtual(im, table, size);
    if (!buf)
        return refuse(im->f, "its relocation table lies outside the file");
    int result = 0;
    for (uint64_t k = 0; k < size / want && result == 0; k++) {
        uint64_t offset, info;
        int64_t addend = 0;
        if (rela) {
            const ElfW(Rela) *r = (const void *)(buf + k * want);
            offset = r->r_offset, info = r->r_info, addend = r->r_addend;
        } else {
            const ElfW(Rel) *r = (const void *)(buf + k * want);
            offset = r->r_offset, info = r->r_info;
        }
        uint64_t sym = ELF64_R_SYM(info);
        if (!in_segment(im, offset, sizeof(void *), 0))
            result = refuse(im->f, "a relocation writes outside the object");
        else if (sym >= nsym)
            result = refuse(im->f, "a relocation names a symbol past the symbol table");
#ifdef __x86_64__
        else if (ELF64_R_TYPE(info) == R_X86_64_COPY)
            result = refuse(im->f, "a copy relocation in a shared object");
        else if (ELF64_R_TYPE(info) == R_X86_64_RELATIVE &&
                 ((d->init_arraysz && offset >= d->init_array &&
                   offset - d->init_array < d->init_arraysz) ||
                  (d->fini_arraysz && offset >= d->fini_array &&
                   offset - d->fini_array < d->fini_arraysz)) &&
                 !in_segment(im, (uint64_t)addend, 1, 1))
            result = refuse(im->f, "an initialiser or finaliser points outside its code");
#endif
    }
    free(buf);
    return result;
}

/* Version indices of the symbols (.gnu.version) index the versions the
 * object needs or defines; the loader reads its table at that index. */
static int check_versions(const elf_image *im, const dynamic_info *d, uint64_t nsym,
                          const char *strings)
{
    unsigned max_index = 1;
    if (d->has_verneed) {
        uint64_t at = d->verneed;
        for (uint64_t i = 0; i < d->verneednum; i++) {
            ElfW(Verneed) need;
            if (read_virtual_to(im, &need, at, sizeof need) != 0)
                return refuse(im->f, "its version needs lie outside the file");
            if (need.vn_version != 1 || !string_ok(need.vn_file, strings, d->strsz))
                return refuse(im->f, "its version needs are malformed");
            uint64_t aux_at = at + need.vn_aux;
            for (unsigned j = 0; j < need.vn_cnt; j++) {
                ElfW(Vernaux) aux;
                if (read_virtual_to(im, &aux, aux_at, sizeof aux) != 0)
                    return refuse(im->f, "its version needs lie outside the file");
                if (!string_ok(aux.vna_name, strings, d->strsz))
                    return refuse(im->f, "its version needs are malformed");
                if ((aux.vna_other & 0x7fff) > max_index)
                    max_index = aux.vna_other & 0x7fff;
                if (!aux.vna_next && j + 1 < need.vn_cnt)
                    return refuse(im->f, "its version needs are malformed");
                aux_at += aux.vna_next;
            }
            if (!need.vn_next && i + 1 < d->verneednum)
                return refuse(im->f, "its version needs are malformed");
            at += need.vn_next;
        }
    }
    if (d->has_verdef) {
        uint64_t at = d->verdef;
        for (uint64_t i = 0; i < d->verdefnum; i++) {
            ElfW(Verdef) def;
            if (read_virtual_to(im, &def, at, sizeof def) != 0)
                return refuse(im->f, "its version definitions lie outside the file");
            if (def.vd_version != 1)
                return refuse(im->f, "its version definitions are malformed");
            if ((def.vd_ndx & 0x7fff) > max_index)
                max_index = def.vd_ndx & 0x7fff;
            if (!def.vd_next && i + 1 < d->verdefnum)
                return refuse(im->f, "its version definitions are malformed");
            at += def.vd_next;
        }
    }
    if (!d->has_versym)
        return 0;
    uint16_t *versym = read_virtual(im, d->versym, nsym * sizeof *versym);
    if (!versym)
        return refuse(im->f, "its symbol versions lie outside the file");
    int result = 0;
    for (uint64_t k = 0; k < nsym && result == 0; k++)
        if ((versym[k] & 0x7fff) > max_index)
            result = refuse(im->f, "a symbol names a version the object neither needs nor "
                                   "defines");
    free(versym);
    return result;
}

/* The GNU hash table through which every lookup in the object goes:
 * buckets and chains inside the symbol table, chains that end. */
static int check_gnu_hash(const elf_image *im, const dynamic_info *d, uint64_t nsym)
{
    if (!d->has_gnu_hash)
        return 0;
    uint32_t header[4];
    if (read_virtual_to(im, header, d->gnu_hash, sizeof header) != 0)
        return refuse(im->f, "its symbol hash table lies outside the file");
    uint32_t nbuckets = header[0], symoffset = header[1], bloom = header[2], shift = header[3];
    if (!nbuckets || !bloom || (bloom & (bloom - 1)) || shift >= 8 * sizeof(ElfW(Addr)) ||
        symoffset > nsym)
        return refuse(im->f, "its symbol hash table is malformed");
    uint64_t buckets_at = d->gnu_hash + 16 + (uint64_t)bloom * sizeof(ElfW(Addr));
    uint64_t chain_count = nsym - symoffset;
    uint32_t *buckets = read_virtual(im, buckets_at, (uint64_t)nbuckets * 4);
    uint32_t *chains = read_virtual(im, buckets_at + (uint64_t)nbuckets * 4, chain_count * 4);
    int result = 0;
    if (!buckets || (chain_count && !chains))
        result = refuse(im->f, "its symbol hash table lies outside the file");
    for (uint32_t b = 0; b < nbuckets && result == 0; b++) {
        uint32_t s = buckets[b];
        if (!s)
            continue;
        if (s < symoffset || s >= nsym) {
            result = refuse(im->f, "its symbol hash table names a symbol past the table");
            break;
        }
        while (s < nsym && !(chains[s - symoffset] & 1))
            s++;
        if (s >= nsym)
            result = refuse(im->f, "a chain of its symbol hash table does not end");
    }
    free(buckets);
    free(chains);
    return result;
}

static int check_dynamic(const elf_file *f, const ElfW(Ehdr) *e, const ElfW(Phdr) *ph)
{
    elf_image im = {f, ph, e->e_phnum};
    dynamic_info d;
    static uint64_t needed[MAX_DYNAMIC_ENTRIES];
    int n_needed = 0;
    if (read_dynamic(&im, &d, needed, &n_needed) != 0)
        return -1;
    char *strings = read_virtual(&im, d.strtab, d.strsz);
    if (!strings)
        return refuse(f, "its dynamic string table lies outside the file");
    int result = 0;
    uint64_t nsym = symbol_count(&im, e, &d);
    ElfW(Sym) *symbols = nsym ? read_virtual(&im, d.symtab, nsym * sizeof *symbols) : NULL;
    if (!nsym || !symbols)
        result = refuse(f, "its dynamic symbol table lies outside the file");
    for (int i = 0; i < n_needed && result == 0; i++)
        if (!string_ok(needed[i], strings, d.strsz))
            result = refuse(f, "a library name of its dynamic section is outside its strings");
    for (uint64_t k = 0; k < nsym && result == 0; k++)
        if (!string_ok(symbols[k].st_name, strings, d.strsz))
            result = refuse(f, "a symbol name is outside its string table");
    if (result == 0 && ((d.has_init && !in_segment(&im, d.init, 1, 1)) ||
                        (d.has_fini && !in_segment(&im, d.fini, 1, 1))))
        result = refuse(f, "its initialiser or finaliser (DT_INIT, DT_FINI) is not in its code");
    if (result == 0 && ((d.init_arraysz && !in_segment(&im, d.init_array, d.init_arraysz, 0)) ||
                        (d.fini_arraysz && !in_segment(&im, d.fini_array, d.fini_arraysz, 0))))
        result = refuse(f, "its initialiser or finaliser arrays lie outside the object");
    if (result == 0)
        result = check_relocations(&im, &d, nsym, d.rela, d.relasz, d.relaent, 1);
    if (result == 0)
        result = check_relocations(&im, &d, nsym, d.rel, d.relsz, d.relent, 0);
    if (result == 0 && d.pltrelsz)
        result = d.pltrel == DT_RELA || d.pltrel == DT_REL
                     ? check_relocations(&im, &d, nsym, d.jmprel, d.pltrelsz,
                                         d.pltrel == DT_RELA ? sizeof(ElfW(Rela))
                                                             : sizeof(ElfW(Rel)),
                                         d.pltrel == DT_RELA)
                     : refuse(f, "its PLT relocations are of no known kind");
    if (result == 0)
        result = check_versions(&im, &d, nsym, strings);
    if (result == 0)
        result = check_gnu_hash(&im, &d, nsym);
    free(symbols);
    free(strings);
    return result;
}

int plugin_file_check(const char *path, plugin_file_info *info)
{
    memset(info, 0, sizeof *info);
    elf_file f = {path, -1, 0};
    /* O_NONBLOCK: opening a FIFO must not wait for a writer */
    f.fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (f.fd < 0) {
        host_error("plugin file '%s' could not be loaded: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    int result = -1;
    ElfW(Phdr) *ph = NULL;
    if (fstat(f.fd, &st) != 0) {
        refuse(&f, strerror(errno));
        goto done;
    }
    if (!S_ISREG(st.st_mode)) {
        refuse(&f, file_kind(st.st_mode));
        goto done;
    }
    f.size = (uint64_t)st.st_size;
    info->device = st.st_dev, info->inode = st.st_ino, info->size = st.st_size;
    info->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    ElfW(Ehdr) e;
    if (f.size < sizeof e) {
        char why[96];
        snprintf(why, sizeof why, "%s (%llu bytes)",
                 f.size >= SELFMAG && read_at(&f, &e, SELFMAG, 0) == 0 &&
                         memcmp(e.e_ident, ELFMAG, SELFMAG) == 0
                     ? "truncated: shorter than an ELF header"
                     : "not an ELF file",
                 (unsigned long long)f.size);
        refuse(&f, why);
        goto done;
    }
    if (read_at(&f, &e, sizeof e, 0) != 0) {
        refuse(&f, "it cannot be read");
        goto done;
    }
    if (check_header(&f, &e) != 0)
        goto done;
    ph = malloc((size_t)e.e_phnum * sizeof *ph);
    if (!ph || read_at(&f, ph, (uint64_t)e.e_phnum * sizeof *ph, e.e_phoff) != 0) {
        refuse(&f, "its program headers cannot be read");
        goto done;
    }
    if (check_segments(&f, ph, e.e_phnum) != 0)
        goto done;
    /* not a plugin at all says more than what is wrong with its tables */
    if (read_entry(&f, &e, ph, info) < 0 || (!info->entry_read && e.e_shnum != 0))
        goto done;
    result = check_dynamic(&f, &e, ph);
done:
    free(ph);
    close(f.fd);
    return result;
}
