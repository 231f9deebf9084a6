//! Test crate `isa`. ISA bytes and code objects, against LLVM: the instruction decoder against
//! the generated tables of what llvm-mc-19 encodes, field by field and what it refuses, the
//! catalogue kernels' encodings and waits as llvm-objdump reads them, kernel descriptors, the
//! code-object loader and its fuzz pass. Part of the fast loop (`cargo test`); what only LLVM 22
//! measures is the slow `llvm22` crate. One module per file; helpers shared across crates are in
//! tests/common. No process-global state is changed here (no `set_var`, no signal handlers
//! installed in this process, no HIP runtime initialised in this process): see CONTRIBUTING.md,
//! "Test crates".

#[path = "../common/mod.rs"]
mod common;

mod cases_dpp_src1;
mod cases_encoding;
mod cases_from_source;
mod codeobj;
mod codeobj_compiled;
mod codeobj_fuzz;
mod codeobj_validate;
mod decode_errors;
mod decode_fields;
mod decode_oracle;
mod decode_tables;
mod descriptor;
mod kernel_rules;
mod listings;
mod support;
