//! What CLR takes from comgr's answer, as plain data, and which missing
//! fields make the runtime refuse a code object (ROCclr rocm-5.2.3:
//! `device/devprogram.cpp` `createKernelMetadataMap`, `device/devkernel.cpp`
//! `GetAttrCodePropMetadata` and `InitParameters`, `device/rocm/rockernel.cpp`
//! `LightningKernel::postLoad`).

use super::Reading;

/// What the runtime does when a kernel lacks a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClrNeed {
    /// The module load or the kernel lookup fails.
    Refuses,
    /// Read with `atoi`, so a missing field is taken as 0 (or, for `.args`,
    /// as no arguments) and the kernel is launched with it.
    TakesZero,
}

/// Every kernel field CLR reads from comgr's metadata, with what it does
/// without it: kernels are found by `.name` (`kernelMetadataMap_`), their
/// code by `.symbol` (`hsa_executable_get_symbol_by_name`, which fails on the
/// empty name), and `postLoad` refuses a kernel whose
/// `.max_flat_workgroup_size` read as 0. The rest size the kernarg buffer
/// (`.kernarg_segment_size`, aligned to at least 128 bytes), lay out the
/// arguments (`.args`), answer `hipFuncGetAttributes` (registers, LDS,
/// scratch) and decide occupancy; `.wavefront_size` is overwritten by the
/// agent's in 5.2's `postLoad`.
pub const CLR_KERNEL_FIELDS: &[(&str, ClrNeed)] = &[
    (".name", ClrNeed::Refuses),
    (".symbol", ClrNeed::Refuses),
    (".max_flat_workgroup_size", ClrNeed::Refuses),
    (".kernarg_segment_size", ClrNeed::TakesZero),
    (".kernarg_segment_align", ClrNeed::TakesZero),
    (".wavefront_size", ClrNeed::TakesZero),
    (".sgpr_count", ClrNeed::TakesZero),
    (".vgpr_count", ClrNeed::TakesZero),
    (".group_segment_fixed_size", ClrNeed::TakesZero),
    (".private_segment_fixed_size", ClrNeed::TakesZero),
    (".args", ClrNeed::TakesZero),
];

/// One argument as CLR reads it (`populateArgsV3`), the text comgr gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgMetadata {
    pub name: Option<String>,
    pub size: Option<String>,
    pub offset: Option<String>,
    pub value_kind: Option<String>,
}

/// One kernel of `amdhsa.kernels` as comgr gave it to CLR. Numbers are
/// parsed from comgr's decimal text; `unreadable` keeps a field whose text
/// is not an unsigned number (CLR's `atoi` would make something of it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelMetadata {
    pub name: Option<String>,
    pub symbol: Option<String>,
    pub kernarg_segment_size: Option<u64>,
    pub kernarg_segment_align: Option<u64>,
    pub wavefront_size: Option<u64>,
    pub sgpr_count: Option<u64>,
    pub vgpr_count: Option<u64>,
    pub group_segment_fixed_size: Option<u64>,
    pub private_segment_fixed_size: Option<u64>,
    pub max_flat_workgroup_size: Option<u64>,
    pub reqd_workgroup_size: Option<Vec<String>>,
    /// `None` when the kernel has no `.args` (CLR: no arguments).
    pub args: Option<Vec<ArgMetadata>>,
    /// Every key of the kernel's map, as `amd_comgr_iterate_map_metadata` walks it.
    pub keys: Vec<String>,
    pub unreadable: Vec<(&'static str, String)>,
}

impl KernelMetadata {
    /// The kernel from the text comgr gave for each present field of
    /// [`CLR_KERNEL_FIELDS`] (`.args` aside).
    pub(super) fn from_fields(
        fields: Vec<(&'static str, String)>,
        args: Option<Vec<ArgMetadata>>,
        reqd_workgroup_size: Option<Vec<String>>,
        keys: Vec<String>,
    ) -> KernelMetadata {
        let mut k = KernelMetadata {
            args,
            reqd_workgroup_size,
            keys,
            ..KernelMetadata::default()
        };
        for (key, text) in fields {
            let number = text.trim().parse::<u64>().ok();
            let slot = match key {
                ".name" => {
                    k.name = Some(text);
                    continue;
                }
                ".symbol" => {
                    k.symbol = Some(text);
                    continue;
                }
                ".kernarg_segment_size" => &mut k.kernarg_segment_size,
                ".kernarg_segment_align" => &mut k.kernarg_segment_align,
                ".wavefront_size" => &mut k.wavefront_size,
                ".sgpr_count" => &mut k.sgpr_count,
                ".vgpr_count" => &mut k.vgpr_count,
                ".group_segment_fixed_size" => &mut k.group_segment_fixed_size,
                ".private_segment_fixed_size" => &mut k.private_segment_fixed_size,
                ".max_flat_workgroup_size" => &mut k.max_flat_workgroup_size,
                _ => continue,
            };
            match number {
                Some(n) => *slot = Some(n),
                None => k.unreadable.push((key, text)),
            }
        }
        k
    }

    /// Whether the field `key` of [`CLR_KERNEL_FIELDS`] was given.
    fn has(&self, key: &str) -> bool {
        match key {
            ".name" => self.name.is_some(),
            ".symbol" => self.symbol.is_some(),
            ".kernarg_segment_size" => self.kernarg_segment_size.is_some(),
            ".kernarg_segment_align" => self.kernarg_segment_align.is_some(),
            ".wavefront_size" => self.wavefront_size.is_some(),
            ".sgpr_count" => self.sgpr_count.is_some(),
            ".vgpr_count" => self.vgpr_count.is_some(),
            ".group_segment_fixed_size" => self.group_segment_fixed_size.is_some(),
            ".private_segment_fixed_size" => self.private_segment_fixed_size.is_some(),
            ".max_flat_workgroup_size" => self.max_flat_workgroup_size.is_some(),
            ".args" => self.args.is_some(),
            _ => false,
        }
    }

    /// The kernel's name for messages: `.name`, else `.symbol`, else `#index`.
    pub fn shown(&self, index: usize) -> String {
        self.name
            .clone()
            .or_else(|| self.symbol.clone())
            .unwrap_or_else(|| format!("#{index}"))
    }
}

/// A field CLR reads that a kernel lacks (or gives as text that is no number).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    pub field: &'static str,
    pub need: ClrNeed,
    /// `missing`, or `not an unsigned integer: "<text>"`.
    pub why: String,
}

/// The fields of [`CLR_KERNEL_FIELDS`] `kernel` lacks, in the table's order.
/// An argument without `.size`, `.offset` or `.value_kind` counts as a
/// missing `.args` (CLR would lay it out at offset 0 with size 0).
pub fn missing_fields(kernel: &KernelMetadata) -> Vec<Missing> {
    let mut missing = Vec::new();
    for &(field, need) in CLR_KERNEL_FIELDS {
        if let Some((_, text)) = kernel.unreadable.iter().find(|(k, _)| *k == field) {
            missing.push(Missing {
                field,
                need,
                why: format!("not an unsigned integer: {text:?}"),
            });
        } else if !kernel.has(field) {
            missing.push(Missing {
                field,
                need,
                why: "missing".into(),
            });
        }
    }
    for (i, arg) in kernel.args.iter().flatten().enumerate() {
        let parts = [
            (".size", arg.size.is_some()),
            (".offset", arg.offset.is_some()),
            (".value_kind", arg.value_kind.is_some()),
        ];
        for (part, present) in parts {
            if !present {
                missing.push(Missing {
                    field: ".args",
                    need: ClrNeed::TakesZero,
                    why: format!("argument {i} has no {part}"),
                });
            }
        }
    }
    missing
}

/// The program-level metadata CLR reads: `amdhsa.version` (as comgr's
/// text), `amdhsa.target`, and `amdhsa.kernels` (`None` when absent).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProgramMetadata {
    pub version: Vec<String>,
    pub target: Option<String>,
    pub kernels: Option<Vec<KernelMetadata>>,
}

/// Why the HIP runtime whose comgr gave `reading` would refuse the code
/// object (one clause, no trailing period), or `None` when it would load it:
/// comgr cannot name its ISA or read its metadata, it has no
/// `amdhsa.version` or no `amdhsa.kernels`, or a kernel lacks a field CLR
/// refuses a kernel without ([`ClrNeed::Refuses`]).
pub fn refusal(reading: &Reading) -> Option<String> {
    let comgr = &reading.library;
    if let Err(e) = &reading.isa_name {
        return Some(format!(
            "{comgr} cannot name its ISA ({e}), and CLR fails the load (\"COMGR failed to get code object ISA name\")"
        ));
    }
    let program = match &reading.metadata {
        Ok(p) => p,
        Err(e) => return Some(format!("{comgr} cannot read its metadata ({e})")),
    };
    if program.version.is_empty() {
        return Some(
            "its metadata has no amdhsa.version (CLR: \"No amdhsa.version metadata found\")".into(),
        );
    }
    let Some(kernels) = &program.kernels else {
        return Some(
            "its metadata has no amdhsa.kernels, so the runtime finds no kernel in it".into(),
        );
    };
    kernels.iter().enumerate().find_map(|(i, k)| {
        let refused: Vec<String> = missing_fields(k)
            .into_iter()
            .filter(|m| m.need == ClrNeed::Refuses)
            .map(|m| format!("{} ({})", m.field, m.why))
            .collect();
        (!refused.is_empty()).then(|| {
            format!(
                "kernel {} lacks {}, which the runtime refuses a kernel without",
                k.shown(i),
                refused.join(", ")
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field CLR reads but `.args` and `skip`, as comgr would give it.
    fn fields_without(skip: &str) -> Vec<(&'static str, String)> {
        CLR_KERNEL_FIELDS
            .iter()
            .filter(|(k, _)| *k != ".args" && *k != skip)
            .map(|&(k, _)| {
                (
                    k,
                    if k == ".name" || k == ".symbol" {
                        "k"
                    } else {
                        "64"
                    }
                    .into(),
                )
            })
            .collect()
    }

    fn arg() -> ArgMetadata {
        ArgMetadata {
            name: None,
            size: Some("8".into()),
            offset: Some("0".into()),
            value_kind: Some("global_buffer".into()),
        }
    }

    fn complete() -> KernelMetadata {
        KernelMetadata::from_fields(fields_without(""), Some(vec![arg()]), None, Vec::new())
    }

    fn reading(kernel: KernelMetadata) -> Reading {
        Reading {
            library: "libamd_comgr.so.2".into(),
            isa_name: Ok("amdgcn-amd-amdhsa--gfx1030".into()),
            metadata: Ok(ProgramMetadata {
                version: vec!["1".into(), "1".into()],
                target: None,
                kernels: Some(vec![kernel]),
            }),
        }
    }

    #[test]
    fn a_complete_kernel_lacks_nothing_and_is_loaded() {
        assert_eq!(missing_fields(&complete()), Vec::new());
        assert_eq!(refusal(&reading(complete())), None);
    }

    #[test]
    fn each_missing_field_is_named_and_only_the_refused_ones_refuse() {
        for &(field, need) in CLR_KERNEL_FIELDS {
            let args = (field != ".args").then(|| vec![arg()]);
            let k = KernelMetadata::from_fields(fields_without(field), args, None, Vec::new());
            let missing = missing_fields(&k);
            assert_eq!(missing.len(), 1, "{field}: {missing:?}");
            assert_eq!((missing[0].field, missing[0].need), (field, need));
            let why = refusal(&reading(k));
            assert_eq!(why.is_some(), need == ClrNeed::Refuses, "{field}: {why:?}");
            if let Some(why) = why {
                assert!(why.contains(field), "{why}");
            }
        }
    }

    #[test]
    fn a_number_comgr_gives_as_other_text_is_unreadable_not_zero() {
        let k = KernelMetadata::from_fields(
            vec![(".max_flat_workgroup_size", "many".into())],
            None,
            None,
            Vec::new(),
        );
        assert_eq!(k.max_flat_workgroup_size, None);
        let missing = missing_fields(&k);
        let m = missing
            .iter()
            .find(|m| m.field == ".max_flat_workgroup_size")
            .unwrap();
        assert!(m.why.contains("\"many\""), "{m:?}");
    }
}
