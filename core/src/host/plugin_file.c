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
    if (read_entry(&f, &e, ph, info) < 0)
        goto done;
    result = info->entry_read || e.e_shnum == 0 ? 0 : -1;
done:
    free(ph);
    close(f.fd);
    return result;
}
