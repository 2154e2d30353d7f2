
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'veilkit' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'veilkit'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'veilkit' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Silence progress bars and informational messages (errors and warnings still show)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Silence progress bars and informational messages (errors and warnings still show)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('keygen', 'keygen', [CompletionResultType]::ParameterValue, 'Generate a master key, or add a new current key to a keyring')
            [CompletionResult]::new('keys', 'keys', [CompletionResultType]::ParameterValue, 'Show the ids and fingerprints of a keyring (never the keys)')
            break
        }
        'veilkit;keygen' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the key to FILE (created 0600, atomically) instead of standard output')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the key to FILE (created 0600, atomically) instead of standard output')
            [CompletionResult]::new('--add', '--add', [CompletionResultType]::ParameterName, 'Append a new key to the keyring FILE; it becomes the current key')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Replace FILE if it exists')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace FILE if it exists')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Silence progress bars and informational messages (errors and warnings still show)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Silence progress bars and informational messages (errors and warnings still show)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'veilkit;keys' {
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Key file (a keyring made by `veilkit keygen`); `/dev/fd/N` reads an open descriptor. Without it: $VEILKIT_KEY_FILE, then $VEILKIT_KEY (the key text itself)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Silence progress bars and informational messages (errors and warnings still show)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Silence progress bars and informational messages (errors and warnings still show)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
