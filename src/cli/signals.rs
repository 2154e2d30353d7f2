//! Signals: on SIGINT, SIGTERM or SIGHUP, remove the temporary files of output being
//! written, restore the terminal if a hidden prompt turned echo off, and exit with
//! 128 + the signal number (130 for SIGINT).

use rustix::termios::Termios;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::Mutex;

/// Terminal settings to put back if a signal arrives while a hidden prompt is active,
/// with a duplicate of the terminal's descriptor to put them back on.
static TTY_RESTORE: Mutex<Option<(OwnedFd, Termios)>> = Mutex::new(None);

/// Installs the handler thread, once; later calls do nothing. Called by the commands
/// that need it (those writing output files or prompting), not at start-up: a lookup
/// process should not pay for a thread it never uses. Without it, SIGINT ends the
/// process with the shell's status 130 anyway.
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(install_now);
}

fn install_now() {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        use signal_hook::iterator::Signals;
        let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                if let Some(sig) = signals.forever().next() {
                    HANDLING.store(true, std::sync::atomic::Ordering::SeqCst);
                    crate::streams::remove_live_temp_files();
                    restore_tty();
                    std::process::exit(exit_status(sig));
                }
            })
            .ok();
    }
}

/// Set by the handler thread when a signal arrives; it exits the process once it has
/// removed the temporary files.
static HANDLING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Waits for the handler to end the process when a signal is being handled: a command
/// that fails because the handler removed its temporary files under it (a write into a
/// directory renamed away) then neither reports that failure nor exits before the
/// removal is done; the handler's status (128 + N) is the process's.
pub fn wait_if_interrupted() {
    if HANDLING.load(std::sync::atomic::Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
}

/// The exit status after signal `sig`: 128 + `sig`, or 0 when the command's output was
/// already committed (its work is done: the interruption came after it).
fn exit_status(sig: i32) -> i32 {
    if crate::streams::output_committed() {
        0
    } else {
        128 + sig
    }
}

/// Remembers the terminal settings of `fd`, to be restored by [`restore_tty`] (or by a
/// signal) after a hidden prompt. Nothing is saved when `fd` is not a terminal.
pub fn save_tty(fd: impl AsFd) {
    install();
    let fd = fd.as_fd();
    if let (Ok(t), Ok(dup)) = (rustix::termios::tcgetattr(fd), fd.try_clone_to_owned()) {
        *TTY_RESTORE.lock().unwrap_or_else(|e| e.into_inner()) = Some((dup, t));
    }
}

/// Puts back the terminal settings saved by [`save_tty`], if any, and forgets them.
pub fn restore_tty() {
    let saved = TTY_RESTORE.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some((fd, t)) = saved {
        // On failure nothing changes.
        let _ = rustix::termios::tcsetattr(&fd, rustix::termios::OptionalActions::Now, &t);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_interruption_after_the_commit_is_a_success() {
        if !crate::streams::output_committed() {
            assert_eq!(super::exit_status(2), 130);
        }
        let dir = tempfile::tempdir().unwrap();
        let mut f = crate::streams::AtomicFile::create(
            &dir.path().join("out"),
            crate::streams::AtomicOptions::default(),
        )
        .unwrap();
        std::io::Write::write_all(&mut f, b"x").unwrap();
        f.commit().unwrap();
        assert_eq!(super::exit_status(2), 0);
    }
}
