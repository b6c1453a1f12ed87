//! What ffprobe (Debian package ffmpeg) says of a recorded video: for the tests of
//! `--record-video` and the window's recording.

use std::path::Path;
use std::process::Command;

/// A video file's streams as ffprobe decodes them.
#[derive(Debug, Default)]
pub struct Probe {
    /// Each stream's codec, in order.
    pub codecs: Vec<String>,
    /// Pictures decoded from the video stream.
    pub frames: u64,
    /// The video stream's frame rate.
    pub frame_rate: f64,
    /// Samples decoded from the audio stream, and their rate.
    pub samples: u64,
    pub sample_rate: u64,
}

/// Decodes the whole file with ffprobe; the error is ffprobe's.
pub fn probe(path: &Path) -> Result<Probe, String> {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-count_frames", "-show_entries"])
        .arg("stream=codec_type,codec_name,r_frame_rate,nb_read_frames,sample_rate:frame=media_type,nb_samples")
        .args(["-of", "csv=p=0"])
        .arg(path)
        .output()
        .map_err(|err| format!("ffprobe (Debian package ffmpeg): {err}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let mut probe = Probe::default();
    let number = |text: &str| text.parse::<u64>().map_err(|e| format!("{text}: {e}"));
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        match line.split(',').collect::<Vec<_>>()[..] {
            ["audio", samples] => probe.samples += number(samples)?,
            [codec, "video", rate, frames] => {
                probe.codecs.push(codec.into());
                let (num, den) = rate.split_once('/').ok_or(rate)?;
                probe.frame_rate = number(num)? as f64 / number(den)? as f64;
                probe.frames = number(frames)?;
            }
            [codec, "audio", rate, _, _] => {
                probe.codecs.push(codec.into());
                probe.sample_rate = number(rate)?;
            }
            _ => {}
        }
    }
    Ok(probe)
}
