//! What the device side needs to know about types: the type of every variable a target region captures (from
//! `fn` parameters and annotated `let`s, tracked scope by scope while the macro walks the function), how that
//! type crosses to the device (scalar slot, array of elements, device buffer), and the integer type of a loop
//! variable (inferred from its range).

use quote::ToTokens;
use syn::{Expr, GenericArgument, PathArguments, Type};

/// Primitive scalar types that fit one 8-byte slot.
pub(crate) const SCALARS: &[&str] = &["f64", "f32", "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize", "bool"];
/// Integer types a loop variable can have.
pub(crate) const INTEGERS: &[&str] = &["i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize"];

/// Visible variables and their declared types, innermost scope last.
#[derive(Debug, Clone, Default)]
pub struct TypeEnv {
    scopes: Vec<Vec<Binding>>,
}

/// One declared name.
#[derive(Debug, Clone, Default)]
struct Binding {
    name: String,
    /// The declared type (`None`: not annotated, not evident).
    ty: Option<Type>,
    /// Whether the name is a `target_data` token standing for the variable.
    mapped: bool,
    /// For an untyped local declared from a struct field path (`let a = &mut self.a;`): the path and how it is held.
    alias: Option<(syn::Expr, FieldBinding)>,
    /// Declared as a closure (`let f = |x: f64| 2.0 * x;`).
    closure: bool,
    /// Declared without a value (`let mut ind: usize;`).
    uninit: bool,
    /// Declared `mut` (`let mut stencil = [0.0; 4];`, a `mut x` parameter).
    mutable: bool,
    /// How messages name it, when it stands for what the user wrote otherwise (`self.v` for the local `self_v`).
    shown: Option<String>,
}

impl TypeEnv {
    /// Opens a block scope.
    pub fn push(&mut self) {
        self.scopes.push(Vec::new());
    }

    /// Closes the innermost scope.
    pub fn pop(&mut self) {
        self.scopes.pop();
    }

    fn declare(&mut self, b: Binding) {
        if self.scopes.is_empty() {
            self.scopes.push(Vec::new());
        }
        if let Some(s) = self.scopes.last_mut() {
            s.push(b);
        }
    }

    /// The innermost declaration of `name`.
    fn find(&self, name: &str) -> Option<&Binding> {
        self.scopes.iter().rev().flat_map(|s| s.iter().rev()).find(|b| b.name == name)
    }

    fn find_mut(&mut self, name: &str) -> Option<&mut Binding> {
        self.scopes.iter_mut().rev().flat_map(|s| s.iter_mut().rev()).find(|b| b.name == name)
    }

    /// Declares `name` (untyped) as holding field path `path` (see [`alias_of_init`]).
    pub fn bind_alias(&mut self, name: &str, path: syn::Expr, binding: FieldBinding) {
        self.declare(Binding { name: name.to_string(), alias: Some((path, binding)), ..Binding::default() });
    }

    /// The field path the innermost declaration of `name` holds, if it was declared from one without a type.
    pub fn alias_of(&self, name: &str) -> Option<(syn::Expr, FieldBinding)> {
        self.find(name)?.alias.clone()
    }

    /// Declares a variable (type `None` when it was not annotated).
    pub fn bind(&mut self, name: &str, ty: Option<Type>) {
        self.declare(Binding { name: name.to_string(), ty, ..Binding::default() });
    }

    /// Inside a `target_data` block: `name` is now the block's mapping token for the variable (same elements,
    /// but a token, not a `&mut` reference); an untyped field-path local keeps its path.
    pub fn bind_mapped(&mut self, name: &str) {
        let (ty, alias) = self.find(name).map_or((None, None), |b| (b.ty.clone(), if b.ty.is_none() { b.alias.clone() } else { None }));
        self.declare(Binding { name: name.to_string(), ty, mapped: true, alias, ..Binding::default() });
    }

    /// Messages name the innermost declaration of `name` as `shown` (a field path's local, `self_v` for `self.v`).
    pub fn show_as(&mut self, name: &str, shown: String) {
        if let Some(b) = self.find_mut(name) {
            b.shown = Some(shown);
        }
    }

    /// How messages name `name`, when it stands for something the user wrote otherwise.
    pub fn shown(&self, name: &str) -> Option<String> {
        self.find(name).and_then(|b| b.shown.clone())
    }

    /// Marks the innermost declaration of `name` as a closure (a kernel cannot take one as an argument).
    pub fn mark_closure(&mut self, name: &str) {
        if let Some(b) = self.find_mut(name) {
            b.closure = true;
        }
    }

    /// Marks the innermost declaration of `name` as made without a value (`let mut ind: usize;`).
    pub fn mark_uninit(&mut self, name: &str) {
        if let Some(b) = self.find_mut(name) {
            b.uninit = true;
        }
    }

    /// Whether the innermost declaration of `name` gave it no value.
    pub fn is_uninit(&self, name: &str) -> bool {
        self.find(name).is_some_and(|b| b.uninit)
    }

    /// Whether the innermost declaration of `name` says `mut`.
    pub fn is_declared_mut(&self, name: &str) -> bool {
        self.find(name).is_some_and(|b| b.mutable)
    }

    /// Whether the innermost declaration of `name` is a closure.
    pub fn is_closure(&self, name: &str) -> bool {
        self.find(name).is_some_and(|b| b.closure)
    }

    /// Whether `name` is a `target_data` token (see [`TypeEnv::bind_mapped`]).
    pub fn is_mapped(&self, name: &str) -> bool {
        self.find(name).is_some_and(|b| b.mapped)
    }

    /// `Some(Some(ty))` for a variable with a known type, `Some(None)` for one without, `None` for a name that is
    /// not a local variable (a const, static, fn, or something out of view).
    pub fn lookup(&self, name: &str) -> Option<Option<&Type>> {
        self.find(name).map(|b| b.ty.as_ref())
    }

    /// Binds the names of a `fn` parameter list (`bind_pattern`).
    pub fn bind_params(&mut self, sig: &syn::Signature) {
        for input in &sig.inputs {
            if let syn::FnArg::Typed(pt) = input {
                self.bind_pattern(&pt.pat, Some(&pt.ty));
            }
        }
    }

    /// Binds the names of a `let` pattern (`let x: T`, `let (a, b)`, ...). A name of a mapping token's type is a
    /// mapped variable, as inside the `target_data` block that made the token: a parameter `x: &mut
    /// omp::MappedMut<f64>` (a caller's block), a `let` that borrows one (`let (src, dst) = if .. { (&*a, &mut *b) }
    /// ..`): regions find its data on the block's device, host reruns and host regions read the device's copy.
    pub fn bind_pattern(&mut self, pat: &syn::Pat, ty: Option<&Type>) {
        match pat {
            syn::Pat::Ident(p) => {
                let mapped = ty.is_some_and(|t| mapping_token(t).is_some());
                let mutable = p.mutability.is_some();
                self.declare(Binding { name: p.ident.to_string(), ty: ty.cloned(), mapped, mutable, ..Binding::default() });
            }
            syn::Pat::Type(t) => self.bind_pattern(&t.pat, Some(&t.ty)),
            // `let (a, b): (usize, &mut [f64]) = ...`: each name gets its element's type.
            syn::Pat::Tuple(t) if matches!(ty, Some(Type::Tuple(tt)) if tt.elems.len() == t.elems.len()) => {
                let Some(Type::Tuple(tt)) = ty else { return };
                for (p, ty) in t.elems.iter().zip(&tt.elems) {
                    self.bind_pattern(p, (!matches!(ty, Type::Infer(_))).then_some(ty));
                }
            }
            syn::Pat::Paren(p) => self.bind_pattern(&p.pat, ty),
            other => {
                let mut names = Vec::new();
                crate::analyze::walk::pat_idents(other, &mut names);
                for n in names {
                    self.bind(&n.to_string(), None);
                }
            }
        }
    }
}

/// What the lowerings need to know about the declared types of a loop's captures.
#[derive(Debug, Clone, Default)]
pub(crate) struct CaptureTypes {
    /// Declared as a slice, array or `Vec` (or a reference to one): may get row windows.
    pub slice_like: Vec<String>,
    /// Declared as a `&mut` reference: written through a reborrow (`as_slice_mut(x)`), not `&mut x`.
    pub mut_refs: Vec<String>,
    /// Mapped by an enclosing `target_data` block: the name is the block's token, whose elements a region reaches
    /// with `as_slice(&x)`.
    pub mapped: Vec<String>,
    /// Not local variables (consts, statics, or names out of view): never rebound by a `let` (a `let` of a
    /// const's name is a pattern, of a static's an error), only used as written.
    pub items: Vec<String>,
    /// ndarray arrays (`Array2<f64>`, `&mut ArrayViewMut1<f32>`, ...; `ndarrays::nd_type`), with whether the
    /// variable is a reference to the array: a `target_data` block maps their standard-layout elements.
    pub nd: Vec<(String, bool)>,
    /// Names messages show instead of the variable's (`self_v` → `self.v`: `TypeEnv::show_as`).
    pub shown: Vec<(String, String)>,
    /// `target_data` tokens of ndarray arrays and arrays of rows: their elements are the flat ones, so a section
    /// of them (`c[0..k]`) would not mean rows.
    pub nd_tokens: Vec<String>,
    /// Declared as a shared reference (`&[f64]`, `&MappedRef<..>`): cannot be written.
    pub shared_refs: Vec<String>,
    /// Declared as a primitive scalar (`h: f64`, `n: &usize`): regions take it by value, so data maps and updates of
    /// it move nothing (`lower::offload::standalone`).
    pub scalars: Vec<String>,
    /// Declared as a struct by value (`p: Params`, `omp::Pod` structs): regions take it by value as they take scalars.
    pub values: Vec<String>,
    /// Declared `mut` in view (`let mut stencil = [0.0; 4];`): a `private` copy that the loop writes keeps this `mut`
    /// from looking unused.
    pub declared_mut: Vec<String>,
}

impl CaptureTypes {
    /// Whether `name` travels into regions by value (a primitive scalar or a struct): data maps of it move nothing.
    pub(crate) fn by_value(&self, name: &str) -> bool {
        self.scalars.iter().chain(&self.values).any(|v| v == name)
    }

    /// The declared types of `names` in `env`.
    pub(crate) fn of<'n>(names: impl IntoIterator<Item = &'n syn::Ident>, env: &TypeEnv) -> CaptureTypes {
        let mut out = CaptureTypes::default();
        for n in names {
            let key = n.to_string();
            if env.is_mapped(&key) {
                out.mapped.push(key.clone());
            }
            if let Some(shown) = env.shown(&key) {
                out.shown.push((key.clone(), shown));
            }
            if env.is_declared_mut(&key) {
                out.declared_mut.push(key.clone());
            }
            let t = match env.lookup(&key) {
                Some(Some(t)) => t,
                // `let a = &mut self.a;`: a `&mut` reference, reborrowed, whatever the field's type.
                Some(None) if !env.is_mapped(&key) && matches!(env.alias_of(&key), Some((_, FieldBinding::Mut))) => {
                    out.mut_refs.push(key);
                    continue;
                }
                Some(None) => continue,
                None => {
                    out.items.push(key);
                    continue;
                }
            };
            if matches!(device_type(t), Ok(DeviceType::Array { .. })) {
                out.slice_like.push(key.clone());
            }
            let referent = match t {
                Type::Reference(r) => &*r.elem,
                t => t,
            };
            if is_primitive(referent) && !env.is_mapped(&key) {
                out.scalars.push(key.clone());
            }
            if matches!(device_type(t), Ok(DeviceType::Value(_))) && !env.is_mapped(&key) {
                out.values.push(key.clone());
            }
            if nd_type(t).is_some() {
                if env.is_mapped(&key) {
                    out.nd_tokens.push(key.clone());
                } else {
                    out.nd.push((key.clone(), matches!(t, Type::Reference(_))));
                }
            }
            if matches!(t, Type::Reference(r) if r.mutability.is_none()) {
                out.shared_refs.push(key.clone());
            }
            // A `&mut` reference is reborrowed; so is a `&mut` token parameter, but not the token a `target_data`
            // block made of a `&mut` variable (a value).
            if matches!(t, Type::Reference(r) if r.mutability.is_some()) && (!env.is_mapped(&key) || mapping_token(t).is_some()) {
                out.mut_refs.push(key);
            }
        }
        out
    }
}

/// `Some(mutable)` for a mapping token's type (`MappedMut<..>`, `MappedRef<..>`, maybe behind references).
pub(crate) fn mapping_token(ty: &Type) -> Option<bool> {
    match ty {
        Type::Reference(r) => mapping_token(&r.elem),
        Type::Paren(p) => mapping_token(&p.elem),
        Type::Group(g) => mapping_token(&g.elem),
        Type::Path(p) => match p.path.segments.last()?.ident.to_string().as_str() {
            "MappedMut" => Some(true),
            "MappedRef" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// How a captured variable's type crosses to the device.
#[derive(Debug, Clone)]
pub(crate) enum DeviceType {
    /// A primitive scalar (one slot).
    Scalar(String),
    /// Contiguous elements: `&[T]`, `&mut [T]`, `Vec<T>`, `&Vec<T>`, `[T; N]`, `Box<[T]>` (base + length slots).
    Array {
        /// The element type as written.
        elem: Type,
        /// Whether the type is a mutable borrow or owned (`&mut`, `Vec`, arrays) rather than `&`.
        mutable: bool,
    },
    /// `omp::DeviceBuffer<T>` (device pointer + length slots).
    DeviceBuffer {
        /// The element type.
        elem: Type,
    },
    /// Any other named type by value: a `#[omp::declare_target]` plain-data struct, copied to the device as one
    /// element. Whether it is one is the compiler's to say (the launch maps it with an `omp::Pod` bound), not ours.
    Value(Type),
}

/// Classifies a captured variable's declared type, or says why it cannot go to the device.
pub(crate) fn device_type(ty: &Type) -> Result<DeviceType, String> {
    let class = array_or_value(ty)?;
    if let DeviceType::Array { elem, .. } = &class {
        if let Some(row) = row_type(elem) {
            return Err(format!(
                "the type `{}` cannot cross to the device: its elements are `{row}`s, each with its own allocation (a jagged \
                 array, like `double **` in C), and target regions map contiguous elements only. Use one flat array \
                 indexed `c[i * m + j]` (or an `ndarray::Array2`)",
                ty.to_token_stream()
            ));
        }
    }
    Ok(class)
}

/// The owning container an array element type names (`Vec`, `Box`, `String`, ...), if it is one.
fn row_type(elem: &Type) -> Option<String> {
    match elem {
        Type::Paren(p) => row_type(&p.elem),
        Type::Group(g) => row_type(&g.elem),
        Type::Reference(_) | Type::Slice(_) => Some(elem.to_token_stream().to_string()),
        Type::Array(a) => row_type(&a.elem),
        Type::Path(p) => {
            let last = p.path.segments.last()?.ident.to_string();
            ["Vec", "Box", "String", "VecDeque", "Rc", "Arc"].contains(&last.as_str()).then_some(last)
        }
        _ => None,
    }
}

fn array_or_value(ty: &Type) -> Result<DeviceType, String> {
    match ty {
        Type::Paren(p) => device_type(&p.elem),
        Type::Group(g) => device_type(&g.elem),
        Type::Reference(r) => match &*r.elem {
            Type::Slice(s) => Ok(DeviceType::Array { elem: (*s.elem).clone(), mutable: r.mutability.is_some() }),
            Type::Array(a) => Ok(DeviceType::Array { elem: (*a.elem).clone(), mutable: r.mutability.is_some() }),
            inner => match device_type(inner)? {
                DeviceType::Array { elem, .. } => Ok(DeviceType::Array { elem, mutable: r.mutability.is_some() }),
                DeviceType::DeviceBuffer { elem } => Ok(DeviceType::DeviceBuffer { elem }),
                DeviceType::Value(_) => Err(format!(
                    "a reference to a value (`{}`) cannot be captured by a target region; pass the value (`*x`) or a slice",
                    ty.to_token_stream()
                )),
                DeviceType::Scalar(s) => Err(format!(
                    "a reference to a scalar (`{}`) cannot be captured by a target region; pass the value (`{s}`)",
                    ty.to_token_stream()
                )),
            },
        },
        Type::Array(a) => Ok(DeviceType::Array { elem: (*a.elem).clone(), mutable: true }),
        Type::Slice(s) => Ok(DeviceType::Array { elem: (*s.elem).clone(), mutable: true }),
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last().ok_or("empty type path")?;
            let name = last.ident.to_string();
            if p.path.segments.len() == 1 && SCALARS.contains(&name.as_str()) {
                return Ok(DeviceType::Scalar(name));
            }
            let arg = match &last.arguments {
                PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                    GenericArgument::Type(t) => Some(t.clone()),
                    _ => None,
                }),
                _ => None,
            };
            match (name.as_str(), arg) {
                ("Vec", Some(elem)) => Ok(DeviceType::Array { elem, mutable: true }),
                ("Box", Some(Type::Slice(s))) => Ok(DeviceType::Array { elem: (*s.elem).clone(), mutable: true }),
                ("DeviceBuffer", Some(elem)) => Ok(DeviceType::DeviceBuffer { elem }),
                // A mapping token passed down from a caller's `target_data` block.
                ("MappedMut", Some(elem)) => Ok(DeviceType::Array { elem, mutable: true }),
                ("MappedRef", Some(elem)) => Ok(DeviceType::Array { elem, mutable: false }),
                (_, None) if !matches!(last.arguments, PathArguments::Parenthesized(_)) => Ok(DeviceType::Value(ty.clone())),
                _ => Err(format!(
                    "the type `{}` cannot cross to the device: target regions take primitive scalars, slices, arrays, \
                     `Vec`s of them and `omp::DeviceBuffer`",
                    ty.to_token_stream()
                )),
            }
        }
        other => Err(format!("the type `{}` cannot cross to the device", other.to_token_stream())),
    }
}

/// Whether an element type is a primitive scalar (anything else must be a `#[omp::declare_target]` struct).
pub(crate) fn is_primitive(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.get_ident().is_some_and(|i| SCALARS.contains(&i.to_string().as_str())))
}

/// The integer type of a loop variable, inferred from its range bounds: [`scalar_type_of`] when that is an integer.
pub(crate) fn integer_type_of(e: &Expr, env: &TypeEnv) -> Option<String> {
    scalar_type_of(e, env).filter(|t| INTEGERS.contains(&t.as_str()))
}

/// Whether an initialiser is an unsuffixed float literal (`let mut total = 0.0;`): Rust's fallback type for it is
/// `f64`, which a declaration may assume. Another type that later uses demand (`total += x_f32`) is then a type
/// error at the launch (`scalar::<f64>(total)`), never a silent conversion.
pub(crate) fn is_float_literal(e: &Expr) -> bool {
    match e {
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Float(f), .. }) => f.suffix().is_empty(),
        Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr, .. }) | Expr::Paren(syn::ExprParen { expr, .. }) => {
            is_float_literal(expr)
        }
        _ => false,
    }
}

/// The type of an unannotated `let`'s initialiser when it is evident: a scalar ([`scalar_type_of`], or `f64` for an
/// unsuffixed float literal, rustc's default), an array of such elements (`[0.0f64; 4]`, `[1.0, 2.0]`), a `vec![..]`
/// of them, or a tuple of any of these (`let (a, b) = (n / 2, 0.5);`). rustc confirms each guess where the region
/// uses the value (the kernel's arguments are typed with it), so a later use that makes `0.0` an `f32` is a type
/// error at the region, not another kernel.
pub(crate) fn init_type_of(e: &Expr, env: &TypeEnv) -> Option<Type> {
    let scalar = |e: &Expr| scalar_type_of(e, env).or_else(|| is_float_literal(e).then(|| "f64".to_string()));
    let elements = |elems: &mut dyn Iterator<Item = &Expr>| -> Option<String> {
        let tys: Option<Vec<String>> = elems.map(scalar).collect();
        let tys = tys?;
        (!tys.is_empty() && tys.iter().all(|t| *t == tys[0])).then(|| tys[0].clone())
    };
    let text = match e {
        Expr::Paren(p) => return init_type_of(&p.expr, env),
        Expr::Repeat(r) => format!("[{}; {}]", scalar(&r.expr)?, r.len.to_token_stream()),
        Expr::Array(a) => format!("[{}; {}]", elements(&mut a.elems.iter())?, a.elems.len()),
        Expr::Tuple(t) if !t.elems.is_empty() => {
            // Elements whose type is not evident stay `_` (unknown to `bind_pattern`).
            let parts: Vec<String> =
                t.elems.iter().map(|e| init_type_of(e, env).map_or_else(|| "_".to_string(), |t| t.to_token_stream().to_string())).collect();
            if parts.iter().all(|p| p == "_") {
                return None;
            }
            format!("({},)", parts.join(", "))
        }
        // A `target_data` token borrowed, `&*a` / `&mut *a` (the block's variables are references to tokens), as
        // when a loop picks its source and destination: a token of the array's elements. Only the analysis reads
        // this type (the element type, whether the borrow is `mut`); a borrowed `MappedRef` is typed alike.
        Expr::Reference(r) => {
            let inner = match &*r.expr {
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => &*u.expr,
                e => e,
            };
            let Expr::Path(p) = inner else { return None };
            let name = p.path.get_ident()?.to_string();
            if !env.is_mapped(&name) {
                // `&mut u` of a local whose type is known (`let (u, f) = (&mut u, &mut f);`), not a reference itself.
                let borrows_local = matches!(&*r.expr, Expr::Path(_));
                let t = env.lookup(&name).flatten().filter(|t| borrows_local && !matches!(t, Type::Reference(_)))?;
                return Some(if r.mutability.is_some() { syn::parse_quote!(&mut #t) } else { syn::parse_quote!(&#t) });
            }
            let DeviceType::Array { elem, .. } = device_type(env.lookup(&name).flatten()?).ok()? else { return None };
            let elem = elem.to_token_stream();
            if r.mutability.is_some() {
                format!("&mut ::omp::MappedMut<'_, '_, {elem}>")
            } else {
                format!("&::omp::MappedMut<'_, '_, {elem}>")
            }
        }
        // `if c { x } else { y }` whose branches' values have one evident type.
        Expr::If(i) => {
            let value = |b: &syn::Block| match b.stmts.last() {
                Some(syn::Stmt::Expr(e, None)) => init_type_of(e, env),
                _ => None,
            };
            let then = value(&i.then_branch)?;
            let other = match &*i.else_branch.as_ref()?.1 {
                Expr::Block(b) => value(&b.block)?,
                e => init_type_of(e, env)?,
            };
            let (a, b) = (then.to_token_stream().to_string(), other.to_token_stream().to_string());
            // Parts not evident (`_`) might differ between the branches.
            return (a == b && !a.split_whitespace().any(|t| t == "_")).then_some(then);
        }
        // A struct literal names its type (`MinLoc { val, idx }`): one name, since a longer path may name an enum's
        // variant. A wrong reading fails to type-check; it cannot change what the kernel computes.
        Expr::Struct(s) if s.qself.is_none() && s.path.get_ident().is_some_and(|i| i != "Self") => s.path.to_token_stream().to_string(),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let inner = m.mac.parse_body_with(|input: syn::parse::ParseStream| {
                let first: Expr = input.parse()?;
                if input.peek(syn::Token![;]) {
                    let _: syn::Token![;] = input.parse()?;
                    let _: Expr = input.parse()?;
                    return Ok(vec![first]);
                }
                let mut all = vec![first];
                while input.peek(syn::Token![,]) {
                    let _: syn::Token![,] = input.parse()?;
                    if input.is_empty() {
                        break;
                    }
                    all.push(input.parse()?);
                }
                Ok(all)
            });
            format!("Vec<{}>", elements(&mut inner.ok()?.iter())?)
        }
        _ => scalar(e)?,
    };
    syn::parse_str(&text).ok()
}

/// The primitive scalar type of an expression when it is evident (an unannotated `let`'s initialiser, a range
/// bound): a suffixed literal, a variable of known scalar type, `.len()`, a cast, a comparison, or arithmetic and
/// `min`/`max`/`abs`/`sqrt`-style methods on those (`let nx = n / 4;` with `n: usize`). Unsuffixed literals alone are left open (their type comes
/// from later uses). A wrong answer cannot change meaning: the launch passes the value as this type
/// (`scalar::<T>(x)`), so a mismatch is a compile error.
pub(crate) fn scalar_type_of(e: &Expr, env: &TypeEnv) -> Option<String> {
    use syn::BinOp::*;
    let known = |n: &str| SCALARS.contains(&n).then(|| n.to_string());
    match e {
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => known(i.suffix()),
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Float(f), .. }) => known(f.suffix()),
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(_), .. }) => known("bool"),
        // `u64::MAX`, `i32::MIN`: an associated const of a primitive has its type.
        Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 2 => {
            let (t, c) = (p.path.segments[0].ident.to_string(), p.path.segments[1].ident.to_string());
            if matches!(c.as_str(), "MAX" | "MIN" | "EPSILON" | "INFINITY" | "NEG_INFINITY" | "NAN" | "MIN_POSITIVE") {
                known(&t)
            } else {
                None
            }
        }
        Expr::Path(p) => match env.lookup(&p.path.get_ident()?.to_string())?? {
            Type::Path(tp) => known(&tp.path.get_ident()?.to_string()),
            _ => None,
        },
        Expr::Cast(c) => match &*c.ty {
            Type::Path(tp) => known(&tp.path.get_ident()?.to_string()),
            _ => None,
        },
        Expr::Binary(b) => match b.op {
            Eq(_) | Ne(_) | Lt(_) | Le(_) | Gt(_) | Ge(_) | And(_) | Or(_) => known("bool"),
            Shl(_) | Shr(_) => scalar_type_of(&b.left, env),
            _ => scalar_type_of(&b.left, env).or_else(|| scalar_type_of(&b.right, env)),
        },
        Expr::Paren(p) => scalar_type_of(&p.expr, env),
        Expr::Group(g) => scalar_type_of(&g.expr, env),
        Expr::Unary(u) => scalar_type_of(&u.expr, env),
        Expr::MethodCall(m) if m.method == "len" || m.method == "count" => known("usize"),
        Expr::MethodCall(m) if is_same_type_method(&m.method.to_string()) => scalar_type_of(&m.receiver, env),
        _ => None,
    }
}

/// Whether `method` of a primitive number gives the receiver's type (`min`, `div_ceil`, `sqrt`, ..).
pub(crate) fn is_same_type_method(method: &str) -> bool {
    SAME_TYPE_METHODS.contains(&method)
}

/// Methods of the primitive numbers whose result has the receiver's type.
const SAME_TYPE_METHODS: &[&str] = &[
    "min",
    "max",
    "abs",
    "clamp",
    "saturating_sub",
    "saturating_add",
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
    "sqrt",
    "powi",
    "powf",
    "exp",
    "ln",
    "sin",
    "cos",
    "floor",
    "ceil",
    "round",
    "trunc",
    "div_ceil",
    "next_multiple_of",
    "pow",
    "rem_euclid",
    "div_euclid",
    "saturating_mul",
    "signum",
    "recip",
    "mul_add",
    "hypot",
    "cbrt",
    "exp2",
    "exp_m1",
    "ln_1p",
    "log2",
    "log10",
    "tan",
];

/// The name of a primitive scalar type (`f64`, `usize`), seen through references.
pub(crate) fn scalar_name(t: &Type) -> Option<String> {
    match t {
        Type::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()).filter(|n| SCALARS.contains(&n.as_str())),
        Type::Reference(r) => scalar_name(&r.elem),
        Type::Paren(p) => scalar_name(&p.elem),
        _ => None,
    }
}

/// The integer type of a loop over `base` (`a..b`): from either bound.
pub(crate) fn range_type(base: &syn::ExprRange, env: &TypeEnv) -> Option<String> {
    base.start.as_deref().and_then(|s| integer_type_of(s, env)).or_else(|| base.end.as_deref().and_then(|e| integer_type_of(e, env)))
}

/// How a field path is bound before the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldBinding {
    /// `let v = &path;`: only indexed or called methods on.
    Shared,
    /// `let v = &mut path;`: written through (`path[i] = …`, `path[i] += …`, `&mut path[..]`, `path[i].push(…)`).
    Mut,
    /// `let v = path;`: read as a value (a `Copy` scalar such as `self.n`).
    Value,
}

/// The field path a `let`'s initialiser names, and how the local holds it: `&mut self.a` (`Mut`), `&g.x` (`Shared`),
/// `g.nx` (`Value`), the root a plain variable or `self`.
pub(crate) fn alias_of_init(init: &Expr) -> Option<(Expr, FieldBinding)> {
    let (path, binding) = match init {
        Expr::Reference(r) if r.mutability.is_some() => (&*r.expr, FieldBinding::Mut),
        Expr::Reference(r) => (&*r.expr, FieldBinding::Shared),
        Expr::Field(_) => (init, FieldBinding::Value),
        Expr::Paren(p) => return alias_of_init(&p.expr),
        _ => return None,
    };
    let mut e = path;
    while let Expr::Field(f) = e {
        if !matches!(f.member, syn::Member::Named(_)) {
            return None;
        }
        e = &f.base;
    }
    match e {
        Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() && !matches!(path, Expr::Path(_)) => {
            Some((path.clone(), binding))
        }
        _ => None,
    }
}

/// An ndarray type's element type and number of axes: `Array2<f64>`, `&mut ArrayViewMut3<'_, f32>`,
/// `Array<f64, Ix2>`; or a slice, `Vec` or array of rows (`&[[f64; 3]]`, `Vec<[f32; N]>`, `[[u64; 256]; 4]`: C's
/// `double (*a)[3]` and `a[0:n][0:3]` sections), two axes, whose elements are not arrays themselves.
pub(crate) fn nd_type(ty: &Type) -> Option<(Type, usize)> {
    if let Some(elem) = row_elem(ty) {
        return Some((elem, 2));
    }
    match ty {
        Type::Reference(r) => nd_type(&r.elem),
        Type::Paren(p) => nd_type(&p.elem),
        Type::Group(g) => nd_type(&g.elem),
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let name = last.ident.to_string();
            let PathArguments::AngleBracketed(args) = &last.arguments else { return None };
            let types: Vec<&Type> =
                args.args.iter().filter_map(|a| if let GenericArgument::Type(t) = a { Some(t) } else { None }).collect();
            let elem = (*types.first()?).clone();
            let fixed = ["Array", "ArrayView", "ArrayViewMut"].iter().find_map(|base| {
                let n = name.strip_prefix(base)?;
                matches!(n, "1" | "2" | "3").then(|| n.parse::<usize>().ok()).flatten()
            });
            match (fixed, name.as_str(), types.get(1)) {
                (Some(d), _, None) => Some((elem, d)),
                (None, "Array" | "ArrayView" | "ArrayViewMut", Some(Type::Path(ix))) => {
                    let ix = ix.path.segments.last()?.ident.to_string();
                    let d = match ix.as_str() {
                        "Ix1" => 1,
                        "Ix2" => 2,
                        "Ix3" => 3,
                        _ => return None,
                    };
                    Some((elem, d))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The element type of a slice, `Vec` or array of rows (`[[T; N]]`, `Vec<[T; N]>`, `[[T; N]; M]`, behind references),
/// when `T` is not an array.
pub(crate) fn row_elem(ty: &Type) -> Option<Type> {
    let row = match ty {
        Type::Reference(r) => return row_elem(&r.elem),
        Type::Paren(p) => return row_elem(&p.elem),
        Type::Group(g) => return row_elem(&g.elem),
        Type::Slice(s) => &*s.elem,
        Type::Array(a) => &*a.elem,
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let PathArguments::AngleBracketed(args) = &last.arguments else { return None };
            match (last.ident.to_string().as_str(), args.args.first()) {
                ("Vec", Some(GenericArgument::Type(t))) if args.args.len() == 1 => t,
                _ => return None,
            }
        }
        _ => return None,
    };
    match row {
        Type::Array(a) if !matches!(&*a.elem, Type::Array(_)) => Some((*a.elem).clone()),
        _ => None,
    }
}

#[cfg(test)]
mod test {
    use super::*;

    fn env() -> TypeEnv {
        let sig: syn::Signature = syn::parse_quote!(fn f(n: usize, a: f32, k: i64, x: &[f64]));
        let mut env = TypeEnv::default();
        env.bind_params(&sig);
        env
    }

    #[test]
    fn evident_scalar_types() {
        let env = env();
        let ty = |e: Expr| scalar_type_of(&e, &env);
        assert_eq!(ty(syn::parse_quote!(n / 4)), Some("usize".into()));
        assert_eq!(ty(syn::parse_quote!(2 * n + 1)), Some("usize".into()));
        assert_eq!(ty(syn::parse_quote!(a * 0.5)), Some("f32".into()));
        assert_eq!(ty(syn::parse_quote!((n as f64).sqrt())), Some("f64".into()));
        assert_eq!(ty(syn::parse_quote!(k.abs().max(3))), Some("i64".into()));
        assert_eq!(ty(syn::parse_quote!(n > 3)), Some("bool".into()));
        assert_eq!(ty(syn::parse_quote!(x.len() - 1)), Some("usize".into()));
        assert_eq!(ty(syn::parse_quote!(1u8 << n)), Some("u8".into()));
        assert_eq!(ty(syn::parse_quote!(2.5f32)), Some("f32".into()));
        assert_eq!(ty(syn::parse_quote!(u64::MAX - 3)), Some("u64".into()));
        assert_eq!(ty(syn::parse_quote!(i8::MIN)), Some("i8".into()));
        assert_eq!(ty(syn::parse_quote!(n.div_ceil(16))), Some("usize".into()));
        assert_eq!(ty(syn::parse_quote!(k.rem_euclid(7).pow(2))), Some("i64".into()));
    }

    #[test]
    fn open_types_stay_open() {
        let env = env();
        let ty = |e: Expr| scalar_type_of(&e, &env);
        // Unsuffixed literals take their type from later uses; calls and unknown names are not evident.
        assert_eq!(ty(syn::parse_quote!(0.0)), None);
        assert_eq!(ty(syn::parse_quote!(3)), None);
        assert_eq!(ty(syn::parse_quote!(f(n))), None);
        assert_eq!(ty(syn::parse_quote!(m + 1)), None);
        assert_eq!(ty(syn::parse_quote!(x[0])), None);
    }

    #[test]
    fn ndarray_types() {
        let nd = |t: Type| nd_type(&t).map(|(e, d)| (e.to_token_stream().to_string(), d));
        assert_eq!(nd(syn::parse_quote!(&mut Array2<f64>)), Some(("f64".into(), 2)));
        assert_eq!(nd(syn::parse_quote!(ArrayView3<'_, f32>)), Some(("f32".into(), 3)));
        assert_eq!(nd(syn::parse_quote!(ndarray::Array<f64, Ix1>)), Some(("f64".into(), 1)));
        assert_eq!(nd(syn::parse_quote!(&[f64])), None);
        assert_eq!(nd(syn::parse_quote!(Array<f64, IxDyn>)), None);
        assert_eq!(nd(syn::parse_quote!(&[[f64; 3]])), Some(("f64".into(), 2)));
        assert_eq!(nd(syn::parse_quote!(&mut Vec<[f32; N]>)), Some(("f32".into(), 2)));
        assert_eq!(nd(syn::parse_quote!([[u64; 256]; 4])), Some(("u64".into(), 2)));
        assert_eq!(nd(syn::parse_quote!(&[[[f64; 2]; 3]])), None);
        assert_eq!(nd(syn::parse_quote!(Vec<f64>)), None);
    }
}
