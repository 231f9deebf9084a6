//! The targets as data: the table lives in the `xad-build` crate
//! (`crates/xad-build/src/target.rs`), which the build script assembles the
//! kernels from too; re-exported here so the library names it by one path.

pub use xad_build::target::*;

#[cfg(test)]
mod tests {
    use super::*;

    /// The table's version for the runtime this binary was built against is
    /// the one `run --kernel` assembles with (the toolchain's wrappers).
    #[test]
    fn the_table_and_the_toolchain_agree_on_code_object_versions() {
        let built = crate::platform::toolchain::built_for_runtime();
        for t in TARGETS {
            assert_eq!(
                crate::platform::toolchain::code_object_version(t.name),
                t.code_object_version(built),
                "{}",
                t.name
            );
        }
    }
}
