//! Files the front end writes: save states and screenshots in the data directory.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` so that a reader sees the old file or the whole new one, never a
/// torn write: the bytes go to a temporary file beside it, which is then renamed over it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|err| {
            // "File exists" would not say which file stands in the way.
            match dir.ancestors().find(|a| a.is_file()) {
                Some(file) => {
                    std::io::Error::other(format!("{} is a file, not a folder", file.display()))
                }
                None => err,
            }
        })?;
    }
    // Named after the process, so that two nestors saving the same file never share one.
    let mut temp = path.as_os_str().to_owned();
    temp.push(format!(".{}.tmp", std::process::id()));
    let temp = PathBuf::from(temp);
    let mut file = std::fs::File::create(&temp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&temp, path)
}

/// The largest file read as a ROM: far beyond any NES game (the largest boards address 8 MiB),
/// so that `/dev/zero` or a video file is refused instead of filling memory.
pub const MAX_ROM_BYTES: u64 = 64 << 20;

/// Reads a ROM file, refusing one larger than [`MAX_ROM_BYTES`]; the error names the file.
pub fn read_rom(path: &Path) -> Result<Vec<u8>, String> {
    let cannot = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut bytes = Vec::new();
    file.take(MAX_ROM_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_ROM_BYTES {
        return Err(format!(
            "{}: larger than {} MiB, so not a NES ROM",
            path.display(),
            MAX_ROM_BYTES >> 20
        ));
    }
    Ok(bytes)
}

/// Whether a file can be written at `path` (before a long run whose result goes there): its
/// folder must exist (none is created for the user) and take a new file. Nothing is left
/// behind.
pub fn check_writable(path: &Path) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("no folder {}", dir.display()),
        ));
    }
    if path.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "it is a folder",
        ));
    }
    let mut probe = path.as_os_str().to_owned();
    probe.push(format!(".{}.probe", std::process::id()));
    std::fs::File::create(&probe)?;
    std::fs::remove_file(&probe)
}

/// `<data dir>/nestor`, where saves and screenshots go; the NESTOR_DATA_DIR environment
/// variable replaces it (tests, portable installs).
pub fn data_dir() -> Option<PathBuf> {
    match std::env::var_os("NESTOR_DATA_DIR") {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => dirs::data_dir().map(|dir| dir.join("nestor")),
    }
}

/// `<data dir>/states/<rom>.<slot>.state`: the window's save-state slots, and Lua's numbered
/// savestates.
pub fn state_path(rom_name: &str, slot: u32) -> Option<PathBuf> {
    let name = format!("{}.{slot}.state", safe_stem(rom_name));
    data_dir().map(|dir| dir.join("states").join(name))
}

/// `<state>.luasav`: what Lua scripts' `savestate.registersave` callbacks returned when the
/// user saved that state.
pub fn script_data_path(state: &Path) -> PathBuf {
    let mut name = state.as_os_str().to_owned();
    name.push(".luasav");
    PathBuf::from(name)
}

/// The files Lua scripts write: numbered savestates in the slot files, written atomically.
pub fn lua_files(rom_name: &str) -> lua::HostFiles {
    let rom_name = rom_name.to_string();
    lua::HostFiles {
        slot: Box::new(move |slot| state_path(&rom_name, slot)),
        write: write_atomic,
    }
}

/// A ROM's file name without its extension, reduced to letters, digits, `-` and `_`, for the
/// names of its save and screenshot files.
pub fn safe_stem(rom_name: &str) -> String {
    let stem = Path::new(rom_name)
        .file_stem()
        .map_or("rom".into(), |s| s.to_string_lossy());
    stem.chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The first `<dir>/<stem>-<n>.<extension>` that does not exist yet, counting from 1
/// (screenshots, videos).
pub fn next_numbered_path(dir: &Path, stem: &str, extension: &str) -> PathBuf {
    (1..)
        .map(|n| dir.join(format!("{stem}-{n}.{extension}")))
        .find(|path| !path.exists())
        .expect("some number is free")
}

/// Encodes packed RGB rows as a PNG.
pub fn encode_png(rgb: &[u8], width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().expect("PNG header to memory");
    writer.write_image_data(rgb).expect("PNG data to memory");
    writer.finish().expect("PNG end to memory");
    out
}

/// The console to run `cart` on, loaded from a file named `name`: `forced` (`--region`, the
/// config) if given, else the one the NES 2.0 header names, else PAL for a file name tagged as
/// a PAL release, else NTSC. With a warning to show when `forced` contradicts the ROM.
pub fn region_for(
    cart: &nes::Cartridge,
    name: &str,
    forced: Option<nes::Region>,
) -> (nes::Region, Option<String>) {
    let own = cart
        .header
        .region
        .map(|region| (region, "its header"))
        .or_else(|| nes::Region::from_file_name(name).map(|region| (region, "its file name")));
    match (forced, own) {
        (Some(forced), Some((own, source))) if forced != own => (
            forced,
            Some(format!(
                "{name} is made for {own} consoles ({source} says so); running it on {forced} as asked"
            )),
        ),
        (Some(forced), _) => (forced, None),
        (None, own) => (own.map_or(nes::Region::Ntsc, |(region, _)| region), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_region_comes_from_the_option_the_header_or_the_file_name() {
        use nes::Region;
        let mut image = vec![
            b'N', b'E', b'S', 0x1A, 1, 1, 0, 0x08, 0, 0, 0, 0, 1, 0, 0, 0,
        ];
        image.resize(16 + 0x4000 + 0x2000, 0);
        let pal_header = nes::Cartridge::from_ines(&image).unwrap();
        image[12] = 2;
        let any = nes::Cartridge::from_ines(&image).unwrap();
        assert_eq!(region_for(&any, "Game (U).nes", None), (Region::Ntsc, None));
        assert_eq!(region_for(&any, "Game (E).nes", None), (Region::Pal, None));
        assert_eq!(
            region_for(&pal_header, "Game.nes", None),
            (Region::Pal, None)
        );
        assert_eq!(
            region_for(&any, "Game (E).nes", Some(Region::Dendy)),
            (
                Region::Dendy,
                Some(
                    "Game (E).nes is made for PAL consoles (its file name says so); running it \
                     on Dendy as asked"
                        .into()
                )
            )
        );
        let (region, warning) = region_for(&pal_header, "Game.nes", Some(Region::Ntsc));
        assert_eq!(region, Region::Ntsc);
        assert!(warning.unwrap().contains("(its header says so)"));
        assert_eq!(
            region_for(&pal_header, "G.nes", Some(Region::Pal)),
            (Region::Pal, None)
        );
    }

    #[test]
    fn a_file_where_a_folder_should_be_is_named() {
        let file = std::env::temp_dir().join(format!("nestor-not-a-dir-{}", std::process::id()));
        std::fs::write(&file, b"x").unwrap();
        let err = write_atomic(&file.join("states").join("a.state"), b"y").unwrap_err();
        let _ = std::fs::remove_file(&file);
        assert_eq!(
            err.to_string(),
            format!("{} is a file, not a folder", file.display())
        );
    }

    #[test]
    fn atomic_write_replaces_the_file_and_leaves_no_temp() {
        let dir = std::env::temp_dir().join(format!("nestor-files-{}", std::process::id()));
        let path = dir.join("states").join("game.1.state");
        write_atomic(&path, b"first").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["game.1.state"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn screenshots_count_up() {
        let dir = std::env::temp_dir().join(format!("nestor-shots-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(
            next_numbered_path(&dir, "tetris", "png"),
            dir.join("tetris-1.png")
        );
        std::fs::write(dir.join("tetris-1.png"), b"").unwrap();
        assert_eq!(
            next_numbered_path(&dir, "tetris", "png"),
            dir.join("tetris-2.png")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn png_decodes_back_to_the_same_pixels() {
        let rgb: Vec<u8> = (0..4 * 3 * 3).map(|i| i as u8 * 7).collect();
        let png_bytes = encode_png(&rgb, 4, 3);
        let decoder = png::Decoder::new(png_bytes.as_slice());
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (4, 3));
        assert_eq!(&buf[..info.buffer_size()], rgb.as_slice());
    }
}
