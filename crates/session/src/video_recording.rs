//! Video recording (`--record-video`, the window's Tools menu): every frame run and its sound,
//! handed to `ffmpeg`, which nestor does not bundle.
//!
//! Two passes, so that nothing can make the picture and the sound drift apart: while the game
//! runs, the pictures go down a pipe to an ffmpeg that writes them losslessly (H.264 in RGB) to a
//! temporary file, and the sound goes to a raw temporary file; at the end a second ffmpeg puts
//! both into the user's file (under a temporary name, renamed when complete). A frame is
//! exactly 1/60.0988 s of the machine's time whatever the window's pace, so each frame's sound
//! is stretched to exactly its share of samples at [`SAMPLE_RATE`] (the window steers the
//! APU's rate by up to 0.5% to feed its sound card; the recording keeps the nominal one).

use nes::ppu::{HEIGHT, WIDTH};
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::JoinHandle;

/// The NTSC frame rate as ffmpeg takes it: the 21.477272 MHz master clock over 4 per dot, over
/// 89341.5 dots a frame (60.0988 fps).
const FRAME_RATE: &str = "39375000/655171";
const FRAME_RATE_NUM: u64 = 39_375_000;
const FRAME_RATE_DEN: u64 = 655_171;
/// The recording's sound: 16-bit mono at the APU's nominal rate.
pub const SAMPLE_RATE: u64 = 48_000;
/// Pictures queued for the encoder before the emulator waits for it (about a second).
const QUEUE: usize = 60;

/// The containers a recording can be written in, by the file's extension.
#[derive(Clone, Copy)]
enum Container {
    /// Matroska: the lossless picture as recorded, FLAC sound.
    Mkv,
    /// MP4 for sharing: H.264 (4:2:0, as players expect) and AAC.
    Mp4,
}

/// A recording under way; [`VideoRecording::finish`] writes the file. Dropped unfinished, it
/// leaves nothing behind.
pub struct VideoRecording {
    path: PathBuf,
    container: Container,
    /// The lossless picture being written by the first ffmpeg.
    video_temp: PathBuf,
    sound_temp: PathBuf,
    encoder: Option<Child>,
    pictures: Option<SyncSender<Vec<u8>>>,
    writer: Option<JoinHandle<std::io::Result<()>>>,
    sound: BufWriter<File>,
    frames: u64,
    samples: u64,
    /// The last sample written, held through frames without sound (rewound ones).
    last_sample: i16,
}

impl VideoRecording {
    /// Starts recording into `path` (`.mkv` or `.mp4`). Fails in one line when ffmpeg is
    /// missing, the extension is not one of those or the folder cannot take the file.
    pub fn start(path: &Path) -> Result<VideoRecording, String> {
        let container = match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("mkv") => Container::Mkv,
            Some(e) if e.eq_ignore_ascii_case("mp4") => Container::Mp4,
            _ => {
                return Err(format!(
                    "{}: a video recording is a .mkv (lossless) or .mp4 file",
                    path.display()
                ))
            }
        };
        crate::files::check_writable(path)
            .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
        let temp = |suffix: &str| {
            let mut name = path.as_os_str().to_owned();
            name.push(format!(".{}.{suffix}", std::process::id()));
            PathBuf::from(name)
        };
        let (video_temp, sound_temp) = (temp("video.mkv"), temp("sound.raw"));
        let sound = File::create(&sound_temp)
            .map_err(|err| format!("cannot write {}: {err}", sound_temp.display()))?;
        let size = format!("{WIDTH}x{HEIGHT}");
        let mut encoder = ffmpeg()
            .args([
                "-f",
                "rawvideo",
                "-pixel_format",
                "rgb24",
                "-video_size",
                &size,
            ])
            .args(["-framerate", FRAME_RATE, "-i", "pipe:0"])
            // Lossless H.264 in RGB: a game's frames are much alike, and coding each from the
            // last makes a minute of play 2.4 MB (FFV1, a picture at a time: 44 MB), for about
            // 1.6 ms of ffmpeg's time a frame.
            .args(["-c:v", "libx264rgb", "-qp", "0", "-preset", "veryfast"])
            .arg(&video_temp)
            .stdin(Stdio::piped())
            .spawn()
            .map_err(|err| {
                let _ = std::fs::remove_file(&sound_temp);
                spawn_error(err)
            })?;
        let stdin = encoder.stdin.take().expect("stdin is piped");
        let (pictures, queue) = sync_channel::<Vec<u8>>(QUEUE);
        let writer = std::thread::spawn(move || write_all(stdin, queue));
        Ok(VideoRecording {
            path: path.to_path_buf(),
            container,
            video_temp,
            sound_temp,
            encoder: Some(encoder),
            pictures: Some(pictures),
            writer: Some(writer),
            sound: BufWriter::new(sound),
            frames: 0,
            samples: 0,
            last_sample: 0,
        })
    }

    /// The file being recorded.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Frames recorded so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Adds a frame: its picture (packed RGB, 256x240) and the sound the machine made in it.
    /// An error (ffmpeg gone, a full disk) ends the recording; the caller drops it.
    pub fn frame(&mut self, rgb: &[u8], samples: &[i16]) -> Result<(), String> {
        assert_eq!(rgb.len(), WIDTH * HEIGHT * 3, "a whole picture");
        let sent = self.pictures.as_ref().map(|p| p.send(rgb.to_vec()));
        if !matches!(sent, Some(Ok(()))) {
            return Err(self.encoder_failure());
        }
        self.frames += 1;
        let due = self.frames * SAMPLE_RATE * FRAME_RATE_DEN / FRAME_RATE_NUM;
        let count = (due - self.samples) as usize;
        let mut bytes = Vec::with_capacity(count * 2);
        for i in 0..count {
            let sample = stretched(samples, i, count).unwrap_or(self.last_sample);
            bytes.extend_from_slice(&sample.to_le_bytes());
        }
        self.last_sample = samples.last().copied().unwrap_or(self.last_sample);
        self.samples = due;
        self.sound
            .write_all(&bytes)
            .map_err(|err| format!("cannot write {}: {err}", self.sound_temp.display()))
    }

    /// Ends the recording: the file is written whole under its name, or not at all (the error
    /// says why). Returns the frames it holds.
    pub fn finish(mut self) -> Result<u64, String> {
        self.sound
            .flush()
            .map_err(|err| format!("cannot write {}: {err}", self.sound_temp.display()))?;
        self.pictures = None;
        let written = self.writer.take().map(|w| w.join());
        let mut encoder = self.encoder.take().expect("finished once");
        let failure = ffmpeg_failure(&mut encoder);
        if !matches!(written, Some(Ok(Ok(())))) || failure.is_some() {
            return Err(format!(
                "video recording failed: ffmpeg: {}",
                failure.unwrap_or("stopped reading".into())
            ));
        }
        let mut whole = self.path.as_os_str().to_owned();
        whole.push(format!(
            ".{}.tmp.{}",
            std::process::id(),
            self.container.extension()
        ));
        let whole = PathBuf::from(whole);
        let rate = SAMPLE_RATE.to_string();
        let mut muxer = ffmpeg();
        muxer
            .arg("-i")
            .arg(&self.video_temp)
            .args(["-f", "s16le", "-ar", &rate, "-ac", "1", "-i"])
            .arg(&self.sound_temp)
            .args(["-map", "0:v", "-map", "1:a"])
            .args(self.container.codecs())
            .arg(&whole)
            .stdin(Stdio::null());
        let muxed = muxer
            .spawn()
            .map_err(spawn_error)
            .and_then(|mut child| ffmpeg_failure(&mut child).map_or(Ok(()), Err))
            .and_then(|()| {
                std::fs::rename(&whole, &self.path)
                    .map_err(|err| format!("cannot write {}: {err}", self.path.display()))
            });
        if let Err(err) = muxed {
            let _ = std::fs::remove_file(&whole);
            return Err(format!("video recording failed: {err}"));
        }
        Ok(self.frames)
    }

    /// Why the encoder stopped taking pictures, from its own last words.
    fn encoder_failure(&mut self) -> String {
        self.pictures = None;
        let failure = self.encoder.as_mut().and_then(ffmpeg_failure);
        format!(
            "video recording stopped: ffmpeg: {}",
            failure.unwrap_or("stopped reading".into())
        )
    }
}

impl Drop for VideoRecording {
    /// Unfinished or failed: the encoder is stopped and the temporary files go.
    fn drop(&mut self) {
        self.pictures = None;
        if let Some(mut encoder) = self.encoder.take() {
            let _ = encoder.kill();
            let _ = encoder.wait();
        }
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
        let _ = std::fs::remove_file(&self.video_temp);
        let _ = std::fs::remove_file(&self.sound_temp);
    }
}

impl Container {
    fn extension(self) -> &'static str {
        match self {
            Container::Mkv => "mkv",
            Container::Mp4 => "mp4",
        }
    }

    /// ffmpeg's codec options for the file the user gets.
    fn codecs(self) -> &'static [&'static str] {
        match self {
            Container::Mkv => &["-c:v", "copy", "-c:a", "flac"],
            Container::Mp4 => &["-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac"],
        }
    }
}

/// ffmpeg quiet but for errors, in its own process group so that the terminal's Ctrl-C reaches
/// nestor alone (which then finishes the file).
fn ffmpeg() -> Command {
    let mut command = Command::new("ffmpeg");
    command
        .args(["-hide_banner", "-loglevel", "error", "-y"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    command
}

fn spawn_error(err: std::io::Error) -> String {
    if err.kind() == std::io::ErrorKind::NotFound {
        "video recording needs ffmpeg, which is not installed (not found in PATH)".into()
    } else {
        format!("cannot start ffmpeg: {err}")
    }
}

/// Waits for ffmpeg to end; `None` if it succeeded, else the last line it printed.
fn ffmpeg_failure(child: &mut Child) -> Option<String> {
    let mut said = String::new();
    if let Some(mut stderr) = child.stderr.take() {
        let _ = stderr.read_to_string(&mut said);
    }
    match child.wait() {
        Ok(status) if status.success() => None,
        Ok(status) => Some(
            said.lines()
                .last()
                .map_or(format!("exited with {status}"), str::to_string),
        ),
        Err(err) => Some(err.to_string()),
    }
}

/// The encoder's pipe, fed from the queue until it closes or fails.
fn write_all(
    mut stdin: ChildStdin,
    queue: std::sync::mpsc::Receiver<Vec<u8>>,
) -> std::io::Result<()> {
    for picture in queue {
        stdin.write_all(&picture)?;
    }
    Ok(())
}

/// Sample `i` of `count` spread evenly over `samples` (linear interpolation); `None` when there
/// are none.
fn stretched(samples: &[i16], i: usize, count: usize) -> Option<i16> {
    if samples.len() == count {
        return Some(samples[i]);
    }
    let last = samples.len().checked_sub(1)?;
    let at = ((i as f64 + 0.5) * samples.len() as f64 / count as f64 - 0.5).clamp(0.0, last as f64);
    let (index, fraction) = (at as usize, at.fract());
    let next = samples[(index + 1).min(last)];
    Some((f64::from(samples[index]) * (1.0 - fraction) + f64::from(next) * fraction).round() as i16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frames_sound_is_stretched_to_its_share() {
        let samples = [0, 100, 200, 300];
        let same: Vec<_> = (0..4).map(|i| stretched(&samples, i, 4).unwrap()).collect();
        assert_eq!(same, samples);
        let longer: Vec<_> = (0..8).map(|i| stretched(&samples, i, 8).unwrap()).collect();
        assert_eq!(longer, [0, 25, 75, 125, 175, 225, 275, 300]);
        assert_eq!(stretched(&[], 0, 5), None);
    }

    #[test]
    fn only_mkv_and_mp4_are_recorded() {
        let err = VideoRecording::start(Path::new("out.avi")).err().unwrap();
        assert_eq!(
            err,
            "out.avi: a video recording is a .mkv (lossless) or .mp4 file"
        );
    }
}
