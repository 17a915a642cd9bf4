//! `#[warpkit::kernel]`: a GPU entry point written as an ordinary Rust function.
//!
//! Use it through the `warpkit` crate (`warpkit::kernel`); the expansion names
//! `::warpkit::launch`, so the kernel crate must depend on `warpkit` under that name.
//!
//! ```ignore
//! #[warpkit::kernel]
//! pub unsafe fn scale(data: *mut f32, len: u32, factor: f32) { ... }
//! ```
//!
//! - on `nvptx64`: `#[unsafe(no_mangle)] pub unsafe extern "ptx-kernel" fn scale(...)`;
//! - on the host: a unit struct `scale` implementing `warpkit::launch::KernelSignature` with
//!   `NAME = "scale"` and `Args = (DevicePtrMut<f32>, u32, f32)`, which a host launcher takes
//!   so the argument list is checked by the compiler.
//!
//! Refused, with the error on the offending token: a return type, generic parameters or a
//! `where` clause, a safe `fn` (kernels are `unsafe fn`: whoever launches one promises the
//! grid shape and pointer validity the body relies on), `async`/`const`/`extern`/variadic
//! functions, `self`, and patterns other than plain names. Each parameter type must implement
//! `warpkit::launch::DeviceArg` (checked by the compiler, the error on the type).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, Pat, ReturnType};

/// See the crate documentation.
#[proc_macro_attribute]
pub fn kernel(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    match expand(attr.into(), item.into()) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn error(span: Span, msg: &str) -> syn::Error {
    syn::Error::new(span, msg)
}

/// The whole expansion, on `proc_macro2` tokens so it can be unit-tested.
fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(error(
            attr.span(),
            "#[kernel] takes no arguments (the PTX name is the function's name)",
        ));
    }
    let func: ItemFn = syn::parse2(item)?;
    let sig = &func.sig;
    if let Some(t) = &sig.constness {
        return Err(error(t.span(), "a kernel cannot be `const`"));
    }
    if let Some(t) = &sig.asyncness {
        return Err(error(t.span(), "a kernel cannot be `async`"));
    }
    if let Some(abi) = &sig.abi {
        return Err(error(
            abi.span(),
            "leave out the ABI: #[kernel] makes the function `extern \"ptx-kernel\"`",
        ));
    }
    if sig.unsafety.is_none() {
        return Err(error(
            sig.fn_token.span(),
            "a kernel must be an `unsafe fn`: launching it promises what its body relies on \
             (grid shape, valid pointers, no data races); write `pub unsafe fn` and state \
             those conditions under `# Safety`",
        ));
    }
    if !sig.generics.params.is_empty() {
        return Err(error(
            sig.generics.params.span(),
            "a kernel cannot be generic: a PTX entry point has one fixed parameter list \
             (write one #[kernel] per type, e.g. from a macro_rules! macro)",
        ));
    }
    if let Some(w) = &sig.generics.where_clause {
        return Err(error(w.span(), "a kernel cannot have a `where` clause"));
    }
    if let Some(v) = &sig.variadic {
        return Err(error(v.span(), "a kernel cannot be variadic"));
    }
    if let ReturnType::Type(_, ty) = &sig.output {
        return Err(error(
            ty.span(),
            "a kernel returns nothing: write results through a `*mut T` parameter",
        ));
    }
    let mut types = Vec::new();
    for input in &sig.inputs {
        match input {
            FnArg::Receiver(r) => {
                return Err(error(r.span(), "a kernel cannot take `self`"));
            }
            FnArg::Typed(pt) => {
                match &*pt.pat {
                    Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {}
                    Pat::Wild(_) => {}
                    other => {
                        return Err(error(
                            other.span(),
                            "kernel parameters must be plain names (`x: u32`), not patterns",
                        ));
                    }
                }
                types.push((*pt.ty).clone());
            }
        }
    }

    let name = &sig.ident;
    let vis = &func.vis;
    let attrs = &func.attrs;
    let name_str = name.to_string();
    // One check per parameter, spanned on its type, compiled on both sides.
    let checks = types.iter().map(|ty| {
        quote_spanned! {ty.span()=>
            ::warpkit::launch::__assert_device_arg::<#ty>();
        }
    });
    let host_args = types.iter().map(|ty| {
        quote_spanned! {ty.span()=> <#ty as ::warpkit::launch::DeviceArg>::Host }
    });
    let check_fn = format_ident!("__warpkit_kernel_args_{}", name);
    let doc = format!(
        "Launch descriptor of the GPU kernel `{name_str}` (made by `#[warpkit::kernel]`): \
         pass it to a typed launcher, which checks the argument list."
    );
    let body = &func.block;
    let inputs = &sig.inputs;
    Ok(quote! {
        #[cfg(target_arch = "nvptx64")]
        #(#attrs)*
        #[unsafe(no_mangle)]
        #vis unsafe extern "ptx-kernel" fn #name(#inputs) #body

        #[allow(non_snake_case, dead_code)]
        const fn #check_fn() {
            #(#checks)*
        }

        #[cfg(not(target_arch = "nvptx64"))]
        #[doc = #doc]
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug)]
        #vis struct #name;

        #[cfg(not(target_arch = "nvptx64"))]
        impl ::warpkit::launch::KernelSignature for #name {
            const NAME: &'static str = #name_str;
            type Args = (#(#host_args,)*);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(item: &str) -> String {
        expand(TokenStream::new(), item.parse().unwrap())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn refuses_what_a_ptx_entry_cannot_be() {
        assert!(err("pub unsafe fn k() -> u32 { 0 }").contains("returns nothing"));
        assert!(err("pub unsafe fn k<T>(x: T) {}").contains("cannot be generic"));
        assert!(err("pub unsafe fn k(x: u32) where u32: Copy {}").contains("`where`"));
        assert!(err("pub fn k(x: *mut u32) {}").contains("must be an `unsafe fn`"));
        assert!(err("pub async unsafe fn k() {}").contains("`async`"));
        assert!(err("pub unsafe extern \"C\" fn k() {}").contains("leave out the ABI"));
        assert!(err("pub unsafe fn k((a, b): (u32, u32)) {}").contains("plain names"));
        let e = expand(
            "x".parse().unwrap(),
            "pub unsafe fn k() {}".parse().unwrap(),
        );
        assert!(e.unwrap_err().to_string().contains("no arguments"));
    }

    #[test]
    fn emits_the_entry_and_the_descriptor() {
        let out = expand(
            TokenStream::new(),
            "/// doc\npub unsafe fn scale(data: *mut f32, n: u32) { let _ = (data, n); }"
                .parse()
                .unwrap(),
        )
        .unwrap()
        .to_string();
        assert!(out.contains("extern \"ptx-kernel\" fn scale"), "{out}");
        assert!(out.contains("no_mangle"), "{out}");
        assert!(
            out.contains("const NAME : & 'static str = \"scale\""),
            "{out}"
        );
        assert!(
            out.contains("< * mut f32 as :: warpkit :: launch :: DeviceArg > :: Host"),
            "{out}"
        );
        assert!(out.contains("__assert_device_arg :: < u32 >"), "{out}");
    }
}
