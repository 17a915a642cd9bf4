//! Helpers of the throughput benchmark: CUDA-event timing, CUB, the report.

pub mod cub;
pub mod report;
pub mod timing;
