//! Where the calling thread is in the launch (kernel ABI v2: 1-D grid of teams, 1-D teams).
//!
//! GPUs: a team is a CUDA block / HIP workgroup. Host `.so`: the plugin calls a kernel once, so
//! there is one team of one thread and a grid-stride loop covers the whole iteration space.

#[cfg(target_arch = "amdgpu")]
extern "C" {
    // ockl (ROCm device libs, linked as bitcode): sizes from the dispatch / implicit kernel args
    fn __ockl_get_local_size(dim: u32) -> u64;
    fn __ockl_get_num_groups(dim: u32) -> u64;
}

/// Index of the calling thread among all threads of the launch: `team_id * team_size + thread_in_team`.
#[inline(always)]
pub fn global_thread() -> u64 {
    team_id() as u64 * team_size() as u64 + thread_in_team() as u64
}

/// Number of threads of the launch: `num_teams * team_size` (the grid-stride step).
#[inline(always)]
pub fn num_global_threads() -> u64 {
    num_teams() as u64 * team_size() as u64
}

/// Index of the calling team (block) in the grid.
#[inline(always)]
pub fn team_id() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: reads a special register.
    return unsafe { core::arch::nvptx::_block_idx_x() } as u32;
    #[cfg(target_arch = "amdgpu")]
    return core::arch::amdgpu::workgroup_id_x();
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
    return 0;
}

/// Number of teams (blocks) in the grid.
#[inline(always)]
pub fn num_teams() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: reads a special register.
    return unsafe { core::arch::nvptx::_grid_dim_x() } as u32;
    #[cfg(target_arch = "amdgpu")]
    // SAFETY: ockl reads the dispatch packet / implicit arguments of the running kernel.
    return unsafe { __ockl_get_num_groups(0) } as u32;
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
    return 1;
}

/// Index of the calling thread within its team.
#[inline(always)]
pub fn thread_in_team() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: reads a special register.
    return unsafe { core::arch::nvptx::_thread_idx_x() } as u32;
    #[cfg(target_arch = "amdgpu")]
    return core::arch::amdgpu::workitem_id_x();
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
    return 0;
}

/// Number of threads in the calling team.
#[inline(always)]
pub fn team_size() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: reads a special register.
    return unsafe { core::arch::nvptx::_block_dim_x() } as u32;
    #[cfg(target_arch = "amdgpu")]
    // SAFETY: ockl reads the dispatch packet / implicit arguments of the running kernel.
    return unsafe { __ockl_get_local_size(0) } as u32;
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
    return 1;
}
