# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_veilkit_global_optspecs
    string join \n q/quiet h/help V/version
end

function __fish_veilkit_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_veilkit_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_veilkit_using_subcommand
    set -l cmd (__fish_veilkit_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c veilkit -n "__fish_veilkit_needs_command" -s q -l quiet -d 'Silence progress bars and informational messages (errors and warnings still show)'
complete -c veilkit -n "__fish_veilkit_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_needs_command" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "keygen" -d 'Generate a master key, or add a new current key to a keyring'
complete -c veilkit -n "__fish_veilkit_needs_command" -f -a "keys" -d 'Show the ids and fingerprints of a keyring (never the keys)'
complete -c veilkit -n "__fish_veilkit_using_subcommand keygen" -s o -l output -d 'Write the key to FILE (created 0600, atomically) instead of standard output' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand keygen" -l add -d 'Append a new key to the keyring FILE; it becomes the current key' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand keygen" -s f -l force -d 'Replace FILE if it exists'
complete -c veilkit -n "__fish_veilkit_using_subcommand keygen" -s q -l quiet -d 'Silence progress bars and informational messages (errors and warnings still show)'
complete -c veilkit -n "__fish_veilkit_using_subcommand keygen" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand keygen" -s V -l version -d 'Print version'
complete -c veilkit -n "__fish_veilkit_using_subcommand keys" -l key-file -d 'Key file (a keyring made by `veilkit keygen`); `/dev/fd/N` reads an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)' -r -F
complete -c veilkit -n "__fish_veilkit_using_subcommand keys" -s q -l quiet -d 'Silence progress bars and informational messages (errors and warnings still show)'
complete -c veilkit -n "__fish_veilkit_using_subcommand keys" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c veilkit -n "__fish_veilkit_using_subcommand keys" -s V -l version -d 'Print version'
