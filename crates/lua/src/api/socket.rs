//! LuaSocket's core TCP API, built in: `require("socket")` and `require("socket.core")` give the
//! same table (FCEUX's Windows build preloads LuaSocket; nothing puts it in a global). Written
//! from LuaSocket 3's documentation on the host's sockets, with its object classes
//! (`tcp{master}`, `tcp{client}`, `tcp{server}`), return values and error strings, since scripts
//! branch on `"timeout"` and `"closed"`.
//!
//! Every socket is non-blocking. A call that has to wait tries again every [`POLL`] for as long
//! as the object's timeouts allow (timeout 0: never waits), and the wait counts as the script's
//! running time: once the call into the script has outlasted the watchdog's limit, the script
//! is stopped as a runaway one is, instead of freezing the emulator.

use super::{int, number};
use crate::format::format_g;
use mlua::{
    AnyUserData, IntoLuaMulti, Lua, MultiValue, Result, Table, UserData, UserDataMethods, Value,
};
use socket2::{Domain, SockAddr, Socket, Type};
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, ToSocketAddrs};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How often a waiting call looks at its sockets again.
const POLL: Duration = Duration::from_millis(1);
/// LuaSocket's buffer size: a receive reads at most this much, a send writes this much a step.
const CHUNK: usize = 8192;
const MODULE_KEY: &str = "nestor.socket";

// LuaSocket's error strings.
const TIMEOUT: &str = "timeout";
const CLOSED: &str = "closed";
const NO_HOST: &str = "host or service not provided, or not known";
const NO_SERVICE: &str = "service not supported for socket type";

/// What a socket operation ends with: LuaSocket's error string on failure.
type Outcome<T> = std::result::Result<T, String>;

/// Puts the loader in `package.preload` under both of LuaSocket's module names.
pub fn install(lua: &Lua) -> Result<()> {
    let preload: Table = lua.load("return package.preload").eval()?;
    let loader = lua.create_function(|lua, ()| module(lua))?;
    preload.set("socket", loader.clone())?;
    preload.set("socket.core", loader)
}

/// The module table, made on the first `require` and shared by both names.
fn module(lua: &Lua) -> Result<Table> {
    if let Value::Table(t) = lua.named_registry_value(MODULE_KEY)? {
        return Ok(t);
    }
    let socket = lua.create_table()?;
    socket.set("_VERSION", "LuaSocket 3.0.0")?;
    socket.set(
        "tcp",
        lua.create_function(|lua, ()| create(lua, Family::Any))?,
    )?;
    socket.set(
        "tcp4",
        lua.create_function(|lua, ()| create(lua, Family::V4))?,
    )?;
    socket.set(
        "tcp6",
        lua.create_function(|lua, ()| create(lua, Family::V6))?,
    )?;
    socket.set("connect", lua.create_function(connect)?)?;
    socket.set("bind", lua.create_function(bind)?)?;
    socket.set("select", lua.create_function(select)?)?;
    socket.set(
        "gettime",
        lua.create_function(|_, ()| {
            Ok(SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64()))
        })?,
    )?;
    socket.set(
        "sleep",
        lua.create_function(|lua, args: MultiValue| {
            let seconds = Args::new(lua, "sleep", args).number(1)?;
            let limit = Duration::try_from_secs_f64(seconds.max(0.0)).ok();
            // Nothing to wait for but the time: the watchdog still sees it.
            let _ = wait(lua, limit, || {
                Err::<(), _>(io::ErrorKind::WouldBlock.into())
            })?;
            Ok(())
        })?,
    )?;
    lua.set_named_registry_value(MODULE_KEY, socket.clone())?;
    Ok(socket)
}

/// A C function's arguments, checked as LuaSocket's `luaL_check*` calls check them: numbered
/// from 1 after `self` for methods, as Lua's messages number them.
struct Args {
    lua: Lua,
    function: &'static str,
    values: Vec<Value>,
    /// 1 for a method, whose `self` Lua counts as argument 1.
    shift: usize,
}

impl Args {
    fn new(lua: &Lua, function: &'static str, args: MultiValue) -> Args {
        Args {
            lua: lua.clone(),
            function,
            values: args.into_iter().collect(),
            shift: 0,
        }
    }

    fn method(lua: &Lua, function: &'static str, args: MultiValue) -> Args {
        Args {
            shift: 1,
            ..Args::new(lua, function, args)
        }
    }

    fn get(&self, n: usize) -> &Value {
        self.values.get(n - 1).unwrap_or(&Value::Nil)
    }

    /// Given and not nil (`luaL_opt*` take the default otherwise).
    fn given(&self, n: usize) -> bool {
        !self.get(n).is_nil()
    }

    fn error(&self, n: usize, message: &str) -> mlua::Error {
        super::arg_error(&self.lua, n + self.shift, self.function, message)
    }

    fn type_error(&self, n: usize, expected: &str) -> mlua::Error {
        let got = self.values.get(n - 1).map_or("no value", super::lua_type);
        self.error(n, &format!("{expected} expected, got {got}"))
    }

    /// A string, or a number turned into one, as Lua 5.1 does.
    fn bytes(&self, n: usize) -> Result<Vec<u8>> {
        match self.get(n) {
            Value::String(s) => Ok(s.as_bytes().to_vec()),
            v => number(v)
                .map(|x| format_g(x, 14).into_bytes())
                .ok_or_else(|| self.type_error(n, "string")),
        }
    }

    fn string(&self, n: usize) -> Result<String> {
        Ok(String::from_utf8_lossy(&self.bytes(n)?).into_owned())
    }

    fn opt_string(&self, n: usize, default: &str) -> Result<String> {
        if self.given(n) {
            self.string(n)
        } else {
            Ok(default.into())
        }
    }

    /// A number, or a string that reads as one.
    fn number(&self, n: usize) -> Result<f64> {
        match self.get(n) {
            Value::String(s) => s.to_str().ok().and_then(|s| s.trim().parse().ok()),
            v => number(v),
        }
        .ok_or_else(|| self.type_error(n, "number"))
    }

    fn opt_number(&self, n: usize, default: f64) -> Result<f64> {
        if self.given(n) {
            self.number(n)
        } else {
            Ok(default)
        }
    }

    fn boolean(&self, n: usize) -> Result<bool> {
        match self.get(n) {
            Value::Boolean(b) => Ok(*b),
            _ => Err(self.type_error(n, "boolean")),
        }
    }

    /// One of `options` (`luaL_checkoption`).
    fn option<'o>(&self, n: usize, default: &str, options: &[&'o str]) -> Result<&'o str> {
        let name = self.opt_string(n, default)?;
        options
            .iter()
            .find(|&&o| o == name)
            .copied()
            .ok_or_else(|| self.error(n, &format!("invalid option '{name}'")))
    }
}

/// LuaSocket's message for a failed system call.
fn describe(e: &io::Error) -> String {
    use io::ErrorKind::*;
    match e.kind() {
        WouldBlock | TimedOut => TIMEOUT.into(),
        ConnectionReset | ConnectionAborted | BrokenPipe => CLOSED.into(),
        ConnectionRefused => "connection refused".into(),
        AddrInUse => "address already in use".into(),
        PermissionDenied => "permission denied".into(),
        // The system's own text (strerror), without Rust's " (os error N)".
        _ => {
            let text = e.to_string();
            match text.find(" (os error") {
                Some(end) => text[..end].into(),
                None => text,
            }
        }
    }
}

/// Repeats `attempt` while it would block: every [`POLL`] for at most `limit` (None: no limit;
/// zero: tried once). Ends with a Lua error when the watchdog stops the script meanwhile.
fn wait<T>(
    lua: &Lua,
    limit: Option<Duration>,
    mut attempt: impl FnMut() -> io::Result<T>,
) -> Result<io::Result<T>> {
    let start = Instant::now();
    loop {
        match attempt() {
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                ) => {}
            done => return Ok(done),
        }
        let left = limit.map(|limit| limit.saturating_sub(start.elapsed()));
        if left == Some(Duration::ZERO) {
            return Ok(Err(io::ErrorKind::WouldBlock.into()));
        }
        crate::watchdog::check_wait(lua)?;
        std::thread::sleep(left.map_or(POLL, |left| left.min(POLL)));
    }
}

/// The address families a socket may use (`socket.tcp`, `tcp4`, `tcp6`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Any,
    V4,
    V6,
}

impl Family {
    fn of(addr: &SocketAddr) -> Family {
        if addr.is_ipv6() {
            Family::V6
        } else {
            Family::V4
        }
    }

    /// `socket.connect`'s family argument.
    fn parse(name: &str) -> Family {
        match name {
            "inet" => Family::V4,
            "inet6" => Family::V6,
            _ => Family::Any,
        }
    }
}

/// The addresses of `host` and `port` that `family` allows (`"*"`, with `passive`: any local
/// address). The port is a number, as getaddrinfo reads LuaSocket's service names.
fn resolve(host: &str, port: &str, family: Family, passive: bool) -> Outcome<Vec<SocketAddr>> {
    let port: u16 = port.trim().parse().map_err(|_| NO_SERVICE.to_string())?;
    let addrs: Vec<SocketAddr> = if passive && host == "*" {
        match family {
            Family::V6 => vec![(Ipv6Addr::UNSPECIFIED, port).into()],
            _ => vec![(Ipv4Addr::UNSPECIFIED, port).into()],
        }
    } else {
        (host, port)
            .to_socket_addrs()
            .map_err(|_| NO_HOST.to_string())?
            .collect()
    };
    let addrs: Vec<SocketAddr> = addrs
        .into_iter()
        .filter(|a| family == Family::Any || Family::of(a) == family)
        .collect();
    if addrs.is_empty() {
        return Err(NO_HOST.into());
    }
    Ok(addrs)
}

/// The options `setoption` sets, with their values.
#[derive(Clone, Copy)]
enum Setting {
    KeepAlive(bool),
    Linger(Option<Duration>),
    ReuseAddr(bool),
    NoDelay(bool),
    V6Only(bool),
    RecvBufferSize(usize),
    SendBufferSize(usize),
}

impl Setting {
    fn apply(self, socket: &Socket) -> io::Result<()> {
        match self {
            Setting::KeepAlive(on) => socket.set_keepalive(on),
            Setting::Linger(time) => socket.set_linger(time),
            Setting::ReuseAddr(on) => socket.set_reuse_address(on),
            Setting::NoDelay(on) => socket.set_nodelay(on),
            Setting::V6Only(on) => socket.set_only_v6(on),
            Setting::RecvBufferSize(size) => socket.set_recv_buffer_size(size),
            Setting::SendBufferSize(size) => socket.set_send_buffer_size(size),
        }
    }

    /// Reads `setoption(name, value)`.
    fn parse(args: &Args) -> Result<Setting> {
        let name = args.string(1)?;
        Ok(match name.as_str() {
            "keepalive" => Setting::KeepAlive(args.boolean(2)?),
            "reuseaddr" => Setting::ReuseAddr(args.boolean(2)?),
            "tcp-nodelay" => Setting::NoDelay(args.boolean(2)?),
            "ipv6-v6only" => Setting::V6Only(args.boolean(2)?),
            "recv-buffer-size" => Setting::RecvBufferSize(size_arg(args)?),
            "send-buffer-size" => Setting::SendBufferSize(size_arg(args)?),
            "linger" => {
                let Value::Table(t) = args.get(2) else {
                    return Err(args.type_error(2, "table"));
                };
                let Value::Boolean(on) = t.get("on")? else {
                    return Err(args.error(2, "boolean 'on' field expected"));
                };
                let Some(timeout) = number(&t.get("timeout")?) else {
                    return Err(args.error(2, "number 'timeout' field expected"));
                };
                // The system keeps whole seconds.
                Setting::Linger(on.then(|| Duration::from_secs(int(timeout).max(0) as u64)))
            }
            _ => return Err(args.error(1, &format!("unsupported option `{name}'"))),
        })
    }
}

/// A buffer size argument.
fn size_arg(args: &Args) -> Result<usize> {
    Ok(int(args.number(2)?).clamp(0, i64::from(i32::MAX)) as usize)
}

/// `getoption(name)`: the value, or None when the system does not give it.
fn get_option(lua: &Lua, socket: &Socket, args: &Args) -> Result<Option<Value>> {
    let name = args.string(1)?;
    let flag = |read: io::Result<bool>| read.ok().map(Value::Boolean);
    let size = |read: io::Result<usize>| read.ok().map(|n| Value::Integer(n as i64));
    Ok(match name.as_str() {
        "keepalive" => flag(socket.keepalive()),
        "reuseaddr" => flag(socket.reuse_address()),
        "tcp-nodelay" => flag(socket.nodelay()),
        "ipv6-v6only" => flag(socket.only_v6()),
        "recv-buffer-size" => size(socket.recv_buffer_size()),
        "send-buffer-size" => size(socket.send_buffer_size()),
        "linger" => match socket.linger() {
            Ok(time) => {
                let t = lua.create_table()?;
                t.set("on", time.is_some())?;
                t.set("timeout", time.map_or(0, |d| d.as_secs() as i64))?;
                Some(Value::Table(t))
            }
            Err(_) => None,
        },
        _ => return Err(args.error(1, &format!("unsupported option `{name}'"))),
    })
}

/// What a tcp object is, as LuaSocket names its classes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Master,
    Client,
    Server,
}

impl Class {
    fn name(self) -> &'static str {
        match self {
            Class::Master => "tcp{master}",
            Class::Client => "tcp{client}",
            Class::Server => "tcp{server}",
        }
    }
}

/// How `receive` reads.
enum Pattern {
    /// `"*l"`: up to a LF, without the CRs.
    Line,
    /// `"*a"`: until the connection closes.
    All,
    Bytes(usize),
}

/// A LuaSocket tcp object.
struct Tcp {
    class: Class,
    /// The family of the socket, or the families one may be made for while there is none.
    family: Family,
    /// None before a `socket.tcp()` master's first bind or connect, and once closed.
    socket: Option<Socket>,
    /// The options set so far, set again on a socket made for another family.
    settings: Vec<Setting>,
    /// LuaSocket's block timeout (each wait) and total timeout (each call), in seconds;
    /// negative: none.
    block: f64,
    total: f64,
    /// Bytes received and not yet returned.
    buffer: Vec<u8>,
    /// A connection `select` accepted to find the server readable, for the next `accept`.
    pending: Option<Socket>,
}

impl UserData for Tcp {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        method(
            methods,
            "accept",
            Some(Class::Server),
            |lua, tcp, _| match tcp.accept(lua)? {
                Ok(client) => lua.create_userdata(client)?.into_lua_multi(lua),
                Err(e) => fail(lua, e),
            },
        );
        method(methods, "bind", Some(Class::Master), |lua, tcp, args| {
            let (host, port) = (args.string(1)?, args.string(2)?);
            done(lua, tcp.bind(&host, &port))
        });
        method(methods, "close", None, |lua, tcp, _| {
            tcp.socket = None;
            tcp.pending = None;
            1.into_lua_multi(lua)
        });
        method(methods, "connect", None, |lua, tcp, args| {
            let (host, port) = (args.string(1)?, args.string(2)?);
            let result = tcp.connect(lua, &host, &port)?;
            tcp.class = Class::Client;
            done(lua, result)
        });
        method(methods, "dirty", None, |lua, tcp, _| {
            (!tcp.buffer.is_empty()).into_lua_multi(lua)
        });
        method(methods, "getoption", None, |lua, tcp, args| {
            let value = match &tcp.socket {
                Some(socket) => get_option(lua, socket, &args)?,
                None => None,
            };
            match value {
                Some(value) => value.into_lua_multi(lua),
                None => fail(lua, "getsockopt failed".into()),
            }
        });
        method(
            methods,
            "getpeername",
            Some(Class::Client),
            |lua, tcp, _| address(lua, tcp.socket.as_ref().map(Socket::peer_addr)),
        );
        method(methods, "getsockname", None, |lua, tcp, _| {
            address(lua, tcp.socket.as_ref().map(Socket::local_addr))
        });
        method(methods, "gettimeout", None, |lua, tcp, _| {
            (tcp.block, tcp.total).into_lua_multi(lua)
        });
        method(methods, "listen", Some(Class::Master), |lua, tcp, args| {
            let backlog = int(args.opt_number(1, 32.0)?).clamp(0, i64::from(i32::MAX)) as i32;
            let Some(socket) = &tcp.socket else {
                return fail(lua, CLOSED.into());
            };
            let result = socket.listen(backlog).map_err(|e| describe(&e));
            if result.is_ok() {
                tcp.class = Class::Server;
            }
            done(lua, result)
        });
        method(methods, "receive", Some(Class::Client), |lua, tcp, args| {
            // A number (or a string that reads as one) is a byte count.
            let pattern = match args.number(1) {
                Ok(n) if n >= 0.0 => Pattern::Bytes(n as usize),
                Ok(_) => return Err(args.error(1, "invalid receive pattern")),
                Err(_) => match args.opt_string(1, "*l")?.as_bytes() {
                    [b'*', b'l', ..] => Pattern::Line,
                    [b'*', b'a', ..] => Pattern::All,
                    _ => return Err(args.error(1, "invalid receive pattern")),
                },
            };
            let prefix = if args.given(2) {
                args.bytes(2)?
            } else {
                Vec::new()
            };
            let (data, error) = tcp.receive(lua, pattern, prefix)?;
            let data = Value::String(lua.create_string(data)?);
            match error {
                None => (data, Value::Nil, Value::Nil).into_lua_multi(lua),
                Some(e) => (Value::Nil, e, data).into_lua_multi(lua),
            }
        });
        method(methods, "send", Some(Class::Client), |lua, tcp, args| {
            let data = args.bytes(1)?;
            let (i, j) = (args.opt_number(2, 1.0)?, args.opt_number(3, -1.0)?);
            match tcp.send(lua, &data, int(i), int(j))? {
                (last, None) => (last, Value::Nil, Value::Nil).into_lua_multi(lua),
                (last, Some(e)) => (Value::Nil, e, last).into_lua_multi(lua),
            }
        });
        method(methods, "setoption", None, |lua, tcp, args| {
            let setting = Setting::parse(&args)?;
            match &tcp.socket {
                Some(socket) => {
                    if setting.apply(socket).is_err() {
                        return fail(lua, "setsockopt failed".into());
                    }
                }
                // A master's socket is made by bind or connect, which set it then.
                None if tcp.class == Class::Master => {}
                None => return fail(lua, "setsockopt failed".into()),
            }
            let same = std::mem::discriminant(&setting);
            tcp.settings.retain(|s| std::mem::discriminant(s) != same);
            tcp.settings.push(setting);
            1.into_lua_multi(lua)
        });
        method(methods, "settimeout", None, |lua, tcp, args| {
            let value = args.opt_number(1, -1.0)?;
            match args.opt_string(2, "b")?.bytes().next() {
                Some(b'b') => tcp.block = value,
                Some(b't' | b'r') => tcp.total = value,
                _ => return Err(args.error(2, "invalid timeout mode")),
            }
            1.into_lua_multi(lua)
        });
        method(
            methods,
            "shutdown",
            Some(Class::Client),
            |lua, tcp, args| {
                let how = match args.option(1, "both", &["receive", "send", "both"])? {
                    "receive" => Shutdown::Read,
                    "send" => Shutdown::Write,
                    _ => Shutdown::Both,
                };
                if let Some(socket) = &tcp.socket {
                    // As in LuaSocket, whatever the system says.
                    let _ = socket.shutdown(how);
                }
                1.into_lua_multi(lua)
            },
        );
    }
}

/// Adds a method that only objects of `class` (None: any) may call.
fn method<M: UserDataMethods<Tcp>>(
    methods: &mut M,
    name: &'static str,
    class: Option<Class>,
    f: impl Fn(&Lua, &mut Tcp, Args) -> Result<MultiValue> + 'static,
) {
    methods.add_method_mut(name, move |lua, tcp, args: MultiValue| {
        if let Some(class) = class.filter(|&c| c != tcp.class) {
            let expected = format!("{} expected", class.name());
            return Err(super::arg_error(lua, 1, name, &expected));
        }
        f(lua, tcp, Args::method(lua, name, args))
    });
}

/// LuaSocket's failure: nil and the message.
fn fail(lua: &Lua, message: String) -> Result<MultiValue> {
    (Value::Nil, message).into_lua_multi(lua)
}

/// LuaSocket's `1` for success, or the failure.
fn done(lua: &Lua, result: Outcome<()>) -> Result<MultiValue> {
    match result {
        Ok(()) => 1.into_lua_multi(lua),
        Err(e) => fail(lua, e),
    }
}

/// `getsockname`/`getpeername`: address, port and family.
fn address(lua: &Lua, addr: Option<io::Result<SockAddr>>) -> Result<MultiValue> {
    match addr.map(|a| a.map(|a| a.as_socket())) {
        None => fail(lua, CLOSED.into()),
        Some(Err(e)) => fail(lua, describe(&e)),
        Some(Ok(None)) => fail(lua, "unknown address family".into()),
        Some(Ok(Some(addr))) => {
            let family = if addr.is_ipv6() { "inet6" } else { "inet" };
            (addr.ip().to_string(), addr.port(), family).into_lua_multi(lua)
        }
    }
}

/// A connection under way: made, failed (its error) or still going (WouldBlock).
fn connected(socket: &Socket) -> io::Result<()> {
    if let Some(e) = socket.take_error()? {
        return Err(e);
    }
    socket
        .peer_addr()
        .map(|_| ())
        .map_err(|_| io::ErrorKind::WouldBlock.into())
}

impl Tcp {
    fn new(class: Class, family: Family) -> Tcp {
        Tcp {
            class,
            family,
            socket: None,
            settings: Vec::new(),
            block: -1.0,
            total: -1.0,
            buffer: Vec::new(),
            pending: None,
        }
    }

    /// How long the next wait of a call that started at `start` may last (None: no limit).
    fn retry(&self, start: Instant) -> Option<Duration> {
        let block = (self.block >= 0.0).then_some(self.block);
        let left =
            (self.total >= 0.0).then(|| (self.total - start.elapsed().as_secs_f64()).max(0.0));
        let seconds = match (block, left) {
            (Some(block), Some(left)) => Some(block.min(left)),
            (block, left) => block.or(left),
        };
        // A timeout too long for a Duration is no limit.
        seconds.and_then(|s| Duration::try_from_secs_f64(s).ok())
    }

    /// The socket for `addr`: the one there is, or a new one of its family with the options
    /// set so far.
    fn socket_for(&mut self, addr: &SocketAddr) -> io::Result<&Socket> {
        let family = Family::of(addr);
        let socket = match self.socket.take() {
            Some(socket) if self.family == family => socket,
            _ => {
                let socket = Socket::new(Domain::for_address(*addr), Type::STREAM, None)?;
                socket.set_nonblocking(true)?;
                for setting in &self.settings {
                    // As LuaSocket, which sets them on whatever socket there is.
                    let _ = setting.apply(&socket);
                }
                self.family = family;
                socket
            }
        };
        Ok(self.socket.insert(socket))
    }

    /// Each address of `host` in turn until one binds.
    fn bind(&mut self, host: &str, port: &str) -> Outcome<()> {
        let mut result = Err(NO_HOST.to_string());
        for addr in resolve(host, port, self.family, true)? {
            result = self
                .socket_for(&addr)
                .and_then(|socket| socket.bind(&SockAddr::from(addr)))
                .map_err(|e| describe(&e));
            if result.is_ok() {
                break;
            }
        }
        result
    }

    /// Each address of `host` in turn until one connects (only the first with a zero timeout).
    fn connect(&mut self, lua: &Lua, host: &str, port: &str) -> Result<Outcome<()>> {
        let start = Instant::now();
        if let Some(socket) = &self.socket {
            if socket.peer_addr().is_ok() {
                return Ok(Err("already connected".into()));
            }
        }
        let addrs = match resolve(host, port, self.family, false) {
            Ok(addrs) => addrs,
            Err(e) => return Ok(Err(e)),
        };
        let mut result = Err(NO_HOST.to_string());
        for addr in addrs {
            let limit = self.retry(start);
            result = match self.socket_for(&addr) {
                Ok(socket) => {
                    // socket2 reports a connection still under way as a timeout at once.
                    let started = socket.connect_timeout(&SockAddr::from(addr), Duration::ZERO);
                    // ... and leaves the socket blocking.
                    let nonblocking = socket.set_nonblocking(true);
                    match started.and(nonblocking) {
                        Err(e) if e.kind() == io::ErrorKind::TimedOut => {
                            wait(lua, limit, || connected(socket))?
                        }
                        done => done,
                    }
                }
                Err(e) => Err(e),
            }
            .map_err(|e| describe(&e));
            if result.is_ok() || limit == Some(Duration::ZERO) {
                break;
            }
        }
        Ok(result)
    }

    fn accept(&mut self, lua: &Lua) -> Result<Outcome<Tcp>> {
        let limit = self.retry(Instant::now());
        let accepted = match (self.pending.take(), &self.socket) {
            (Some(socket), _) => Ok(socket),
            (None, None) => return Ok(Err(CLOSED.into())),
            (None, Some(server)) => wait(lua, limit, || server.accept().map(|(s, _)| s))?,
        };
        Ok(accepted
            .and_then(|socket| {
                socket.set_nonblocking(true)?;
                let mut client = Tcp::new(Class::Client, self.family);
                client.socket = Some(socket);
                Ok(client)
            })
            .map_err(|e| describe(&e)))
    }

    /// LuaSocket's buffer refill: there are bytes buffered, or one read brought some.
    fn fill(&mut self, lua: &Lua, start: Instant) -> Result<Outcome<()>> {
        if !self.buffer.is_empty() {
            return Ok(Ok(()));
        }
        let limit = self.retry(start);
        let Some(socket) = &self.socket else {
            return Ok(Err(CLOSED.into()));
        };
        let mut chunk = [0; CHUNK];
        let mut reader: &Socket = socket;
        Ok(match wait(lua, limit, || reader.read(&mut chunk))? {
            Ok(0) => Err(CLOSED.into()),
            Ok(n) => {
                self.buffer.extend_from_slice(&chunk[..n]);
                Ok(())
            }
            Err(e) => Err(describe(&e)),
        })
    }

    /// `receive`: what `pattern` read after `prefix`, and the error that cut it short.
    fn receive(
        &mut self,
        lua: &Lua,
        pattern: Pattern,
        prefix: Vec<u8>,
    ) -> Result<(Vec<u8>, Option<String>)> {
        let start = Instant::now();
        let mut out = prefix;
        let error = match pattern {
            Pattern::Line => loop {
                let status = self.fill(lua, start)?;
                let line_end = self.buffer.iter().position(|&b| b == b'\n');
                let end = line_end.unwrap_or(self.buffer.len());
                out.extend(self.buffer[..end].iter().filter(|&&b| b != b'\r'));
                self.buffer.drain(..line_end.map_or(end, |end| end + 1));
                if line_end.is_some() {
                    break None;
                }
                if let Err(e) = status {
                    break Some(e);
                }
            },
            Pattern::All => {
                let mut total = 0;
                loop {
                    let status = self.fill(lua, start)?;
                    total += self.buffer.len();
                    out.append(&mut self.buffer);
                    if let Err(e) = status {
                        // The close ends the read, unless it brought nothing.
                        break (e != CLOSED || total == 0).then_some(e);
                    }
                }
            }
            // A prefix counts towards the bytes wanted (and one as long is returned whole).
            Pattern::Bytes(wanted) if out.is_empty() || wanted > out.len() => {
                let wanted = wanted - out.len();
                let mut total = 0;
                loop {
                    let status = self.fill(lua, start)?;
                    let n = self.buffer.len().min(wanted - total);
                    out.extend(self.buffer.drain(..n));
                    total += n;
                    if total >= wanted || status.is_err() {
                        break status.err();
                    }
                }
            }
            Pattern::Bytes(_) => None,
        };
        Ok((out, error))
    }

    /// `send(data, i, j)`: the index of the last byte sent, and the error that stopped it.
    fn send(&mut self, lua: &Lua, data: &[u8], i: i64, j: i64) -> Result<(i64, Option<String>)> {
        let size = data.len() as i64;
        // string.sub's indices.
        let first = if i < 0 { size + i + 1 } else { i }.max(1);
        let last = if j < 0 { size + j + 1 } else { j }.min(size);
        let (mut sent, mut error) = (0, None);
        if first <= last {
            let start = Instant::now();
            let part = &data[first as usize - 1..last as usize];
            while sent < part.len() && error.is_none() {
                let step = &part[sent..part.len().min(sent + CHUNK)];
                let limit = self.retry(start);
                let Some(socket) = &self.socket else {
                    error = Some(CLOSED.into());
                    break;
                };
                // A peer that has gone gives EPIPE, not SIGPIPE: Rust programs ignore it.
                let mut writer: &Socket = socket;
                match wait(lua, limit, || writer.write(step))? {
                    Ok(n) => sent += n,
                    Err(e) => error = Some(describe(&e)),
                }
            }
        }
        Ok((sent as i64 + first - 1, error))
    }

    /// For `select`: a receive would not wait (a server: a connection is waiting).
    fn readable(&mut self) -> bool {
        let Some(socket) = &self.socket else {
            return false;
        };
        match self.class {
            Class::Client => {
                !self.buffer.is_empty()
                    || !matches!(
                        socket.peek(&mut [std::mem::MaybeUninit::uninit()]),
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock
                    )
            }
            Class::Server => {
                if self.pending.is_none() {
                    self.pending = socket.accept().ok().map(|(s, _)| s);
                }
                self.pending.is_some()
            }
            Class::Master => false,
        }
    }

    /// For `select`: connected (or the connection failed), so a send would not wait for it.
    fn writable(&self) -> bool {
        match &self.socket {
            Some(socket) if self.class == Class::Client => {
                !matches!(connected(socket), Err(e) if e.kind() == io::ErrorKind::WouldBlock)
            }
            _ => false,
        }
    }
}

/// `socket.tcp()`, `tcp4()`, `tcp6()`: a master object (with a socket at once for one family).
fn create(lua: &Lua, family: Family) -> Result<MultiValue> {
    let mut tcp = Tcp::new(Class::Master, family);
    let any: SocketAddr = match family {
        Family::Any => return lua.create_userdata(tcp)?.into_lua_multi(lua),
        Family::V4 => (Ipv4Addr::UNSPECIFIED, 0).into(),
        Family::V6 => {
            tcp.settings.push(Setting::V6Only(true));
            (Ipv6Addr::UNSPECIFIED, 0).into()
        }
    };
    match tcp.socket_for(&any) {
        Ok(_) => lua.create_userdata(tcp)?.into_lua_multi(lua),
        Err(e) => fail(lua, describe(&e)),
    }
}

/// `socket.connect(address, port [, locaddr [, locport [, family]]])`: a client, connected
/// with no timeout.
fn connect(lua: &Lua, args: MultiValue) -> Result<MultiValue> {
    let args = Args::new(lua, "connect", args);
    let (host, port) = (args.string(1)?, args.string(2)?);
    let family = Family::parse(args.option(5, "unspec", &["unspec", "inet", "inet6"])?);
    let mut tcp = Tcp::new(Class::Master, family);
    if args.given(3) {
        let (local, local_port) = (args.string(3)?, args.opt_string(4, "0")?);
        if let Err(e) = tcp.bind(&local, &local_port) {
            return fail(lua, e);
        }
    }
    match tcp.connect(lua, &host, &port)? {
        Ok(()) => {
            tcp.class = Class::Client;
            lua.create_userdata(tcp)?.into_lua_multi(lua)
        }
        Err(e) => fail(lua, e),
    }
}

/// `socket.bind(address, port [, backlog])`: a server listening there, with "reuseaddr" set.
fn bind(lua: &Lua, args: MultiValue) -> Result<MultiValue> {
    let args = Args::new(lua, "bind", args);
    let (host, port) = (args.string(1)?, args.string(2)?);
    let backlog = int(args.opt_number(3, 32.0)?).clamp(0, i64::from(i32::MAX)) as i32;
    let mut tcp = Tcp::new(Class::Master, Family::Any);
    tcp.settings.push(Setting::ReuseAddr(true));
    let bound = tcp.bind(&host, &port).and_then(|()| {
        tcp.socket
            .as_ref()
            .ok_or_else(|| CLOSED.to_string())?
            .listen(backlog)
            .map_err(|e| describe(&e))
    });
    match bound {
        Ok(()) => {
            tcp.class = Class::Server;
            lua.create_userdata(tcp)?.into_lua_multi(lua)
        }
        Err(e) => fail(lua, e),
    }
}

/// The tcp objects in the array part of `select`'s argument `n` (other values are ignored).
fn sockets(args: &Args, n: usize) -> Result<Vec<AnyUserData>> {
    let table = match args.get(n) {
        Value::Nil => return Ok(Vec::new()),
        Value::Table(t) => t,
        _ => return Err(args.type_error(n, "table")),
    };
    let mut sockets = Vec::new();
    for i in 1.. {
        match table.get::<Value>(i)? {
            Value::Nil => break,
            Value::UserData(ud) if ud.is::<Tcp>() => sockets.push(ud),
            _ => {}
        }
    }
    Ok(sockets)
}

/// `socket.select(recvt, sendt [, timeout])`: the sockets ready to receive from and to send
/// on, each list also keyed by socket; or two empty lists and "timeout".
fn select(lua: &Lua, args: MultiValue) -> Result<MultiValue> {
    let args = Args::new(lua, "select", args);
    let (receivers, senders) = (sockets(&args, 1)?, sockets(&args, 2)?);
    let timeout = args.opt_number(3, -1.0)?;
    let limit = (timeout >= 0.0)
        .then(|| Duration::try_from_secs_f64(timeout).ok())
        .flatten();
    let ready = |list: &[AnyUserData], test: fn(&mut Tcp) -> bool| -> Vec<AnyUserData> {
        list.iter()
            .filter(|ud| ud.borrow_mut::<Tcp>().is_ok_and(|mut tcp| test(&mut tcp)))
            .cloned()
            .collect()
    };
    let found = wait(lua, limit, || {
        let readable = ready(&receivers, Tcp::readable);
        let writable = ready(&senders, |tcp| tcp.writable());
        if readable.is_empty() && writable.is_empty() {
            Err(io::ErrorKind::WouldBlock.into())
        } else {
            Ok((readable, writable))
        }
    })?;
    let list = |sockets: Vec<AnyUserData>| -> Result<Table> {
        let t = lua.create_table()?;
        for (i, ud) in sockets.into_iter().enumerate() {
            t.set(i + 1, ud.clone())?;
            t.set(ud, i + 1)?;
        }
        Ok(t)
    };
    match found {
        Ok((readable, writable)) => (list(readable)?, list(writable)?).into_lua_multi(lua),
        Err(_) => (lua.create_table()?, lua.create_table()?, TIMEOUT).into_lua_multi(lua),
    }
}
