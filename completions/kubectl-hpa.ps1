# PowerShell completion for kubectl-hpa:
#   kubectl hpa completion powershell | Out-String | Invoke-Expression
# (add that line to $PROFILE to keep it).
#
# Every completion asks the binary (`kubectl-hpa __complete -- WORDS...`, the protocol kubectl
# uses for `kubectl hpa <TAB>`), so HPA names come from the cluster or from the --snapshot file
# on the line. Answer: `value<TAB>description` lines, then `:DIRECTIVE` (Cobra's bits: 1 error,
# 2 no space, 4 no file names, 8 file extensions, 16 directories, 32 keep the order).
Register-ArgumentCompleter -Native -CommandName 'kubectl-hpa', 'kubectl-hpa.exe' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $line = $commandAst.Extent.ToString()
    if ($line.Length -gt $cursorPosition) { $line = $line.Substring(0, $cursorPosition) }
    $words = @($line -split '\s+')
    $bin = $words[0]
    $words = @($words | Select-Object -Skip 1)
    if ($words.Count -eq 0) { $words = @('') }
    # Before PowerShell 7.3 (or with Legacy argument passing) an empty argument is dropped.
    $legacy = $PSVersionTable.PSVersion -lt [version]'7.3.0' -or $PSNativeCommandArgumentPassing -eq 'Legacy'
    if ($words[-1] -eq '' -and $legacy) { $words[-1] = '""' }
    $out = @(& $bin __complete -- @words 2>$null)
    if ($out.Count -eq 0) { return }
    $directive = [int]($out[-1].TrimStart(':'))
    if ($directive -band 1) { return }
    if ($directive -band (8 + 16)) { return }  # files or directories: PowerShell's own completion
    $prefix = ''
    if ($wordToComplete -match '^(-[^=]*=)') { $prefix = $Matches[1] }
    $candidates = @($out | Select-Object -SkipLast 1)
    foreach ($c in $candidates) {
        $value, $description = $c -split "`t", 2
        if (-not $description) { $description = $value }
        [System.Management.Automation.CompletionResult]::new("$prefix$value", $value, 'ParameterValue', $description)
    }
}
