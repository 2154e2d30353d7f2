
use builtin;
use str;

set edit:completion:arg-completer[veilkit] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'veilkit'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'veilkit'= {
            cand -q 'Silence progress bars and informational messages (errors and warnings still show)'
            cand --quiet 'Silence progress bars and informational messages (errors and warnings still show)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand keygen 'Generate a master key, or add a new current key to a keyring'
            cand keys 'Show the ids and fingerprints of a keyring (never the keys)'
        }
        &'veilkit;keygen'= {
            cand -o 'Write the key to FILE (created 0600, atomically) instead of standard output'
            cand --output 'Write the key to FILE (created 0600, atomically) instead of standard output'
            cand --add 'Append a new key to the keyring FILE; it becomes the current key'
            cand -f 'Replace FILE if it exists'
            cand --force 'Replace FILE if it exists'
            cand -q 'Silence progress bars and informational messages (errors and warnings still show)'
            cand --quiet 'Silence progress bars and informational messages (errors and warnings still show)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'veilkit;keys'= {
            cand --key-file 'Key file (a keyring made by `veilkit keygen`); `/dev/fd/N` reads an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)'
            cand -q 'Silence progress bars and informational messages (errors and warnings still show)'
            cand --quiet 'Silence progress bars and informational messages (errors and warnings still show)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
    ]
    $completions[$command]
}
