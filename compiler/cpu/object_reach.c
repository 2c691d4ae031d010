/* object_reach.c - does a relocatable x86-64 object reach any distance? Finds the relocations
 * that hold their target in 32 bits or fewer.
 *
 * The design idea: the JIT (llvm_jit.c, ORC LLJIT with RuntimeDyld in LLVM 14) gives each
 * object's code, read-only data and writable data mappings of their own, placed wherever the
 * kernel finds room; with address-space randomisation and a process holding gigabytes of
 * simulated device memory, two sections of one object can end up more than 2 GiB apart. The
 * large code model (codegen_llvm.c) makes every reference 64 bits wide, except what LLVM 14
 * still emits 32 bits wide there: jump tables (`.long .LBB - .LJTI` in .rodata, R_X86_64_PC32
 * to .text). RuntimeDyld truncates such a value without a word (its range check is an
 * assertion, off in release builds), and the jump lands 4 GiB times k away from its block.
 * The code generator therefore turns jump tables off and checks its objects here; the JIT
 * checks objects of older bundles here and compiles their bitcode instead.
 *
 * The object is read as ELF64 little-endian by hand (glibc's <elf.h>), without LLVM.
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "compiler/compiler.h"

/* Does an x86-64 relocation of this type hold a value of 32 bits or fewer? */
static const char *short_type(uint32_t t) {
  switch (t) {
  case R_X86_64_PC32: return "R_X86_64_PC32";
  case R_X86_64_PLT32: return "R_X86_64_PLT32";
  case R_X86_64_GOTPCREL: return "R_X86_64_GOTPCREL";
  case R_X86_64_32: return "R_X86_64_32";
  case R_X86_64_32S: return "R_X86_64_32S";
  case R_X86_64_16: return "R_X86_64_16";
  case R_X86_64_PC16: return "R_X86_64_PC16";
  case R_X86_64_8: return "R_X86_64_8";
  case R_X86_64_PC8: return "R_X86_64_PC8";
  case R_X86_64_GOT32: return "R_X86_64_GOT32";
  case R_X86_64_GOTPC32: return "R_X86_64_GOTPC32";
  case R_X86_64_GOTPCRELX: return "R_X86_64_GOTPCRELX";
  case R_X86_64_REX_GOTPCRELX: return "R_X86_64_REX_GOTPCRELX";
  default: return NULL;
  }
}

int vta_cpu_object_short_reloc(const unsigned char *obj, size_t size, char *what, size_t n) {
  if (what && n) what[0] = 0;
  Elf64_Ehdr eh;
  if (size < sizeof eh || memcmp(obj, ELFMAG, SELFMAG) != 0) return -1;
  memcpy(&eh, obj, sizeof eh);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
      eh.e_machine != EM_X86_64)
    return -1;
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
      (size - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum || eh.e_shstrndx >= eh.e_shnum)
    return -1;
  Elf64_Shdr names;
  memcpy(&names, obj + eh.e_shoff + (size_t)eh.e_shstrndx * sizeof names, sizeof names);
  if (names.sh_offset > size || names.sh_size > size - names.sh_offset) return -1;
  for (unsigned s = 0; s < eh.e_shnum; s++) {
    Elf64_Shdr sh;
    memcpy(&sh, obj + eh.e_shoff + (size_t)s * sizeof sh, sizeof sh);
    if (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) continue;
    size_t ent = sh.sh_type == SHT_RELA ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel);
    if (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset) return -1;
    for (size_t k = 0; k + ent <= sh.sh_size; k += ent) {
      Elf64_Rel r; /* r_offset and r_info lead both forms */
      memcpy(&r, obj + sh.sh_offset + k, sizeof r);
      const char *type = short_type((uint32_t)ELF64_R_TYPE(r.r_info));
      if (!type) continue;
      if (what && n) {
        int in = sh.sh_name < names.sh_size;
        const char *sec = in ? (const char *)obj + names.sh_offset + sh.sh_name : "?";
        size_t room = in ? names.sh_size - sh.sh_name : 1;
        snprintf(what, n, "%s at offset 0x%llx of %.*s", type, (unsigned long long)r.r_offset,
                 (int)strnlen(sec, room), sec);
      }
      return 1;
    }
  }
  return 0;
}
