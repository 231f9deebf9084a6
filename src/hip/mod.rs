//! HIP backend (placeholder: the implementation lands with the foundation's HIP layer).
