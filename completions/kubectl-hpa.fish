# fish completion for kubectl-hpa:
#   kubectl hpa completion fish > ~/.config/fish/completions/kubectl-hpa.fish
#
# Every completion asks the binary (`kubectl-hpa __complete -- WORDS...`, the protocol kubectl
# uses for `kubectl hpa <TAB>`), so HPA names come from the cluster or from the --snapshot file
# on the line. Answer: `value<TAB>description` lines, then `:DIRECTIVE` (Cobra's bits: 1 error,
# 2 no space, 4 no file names, 8 file extensions, 16 directories, 32 keep the order).
function __kubectl_hpa_complete
    set -l args (commandline -opc)
    set -l bin $args[1]
    set -e args[1]
    set -l cur (commandline -ct)
    set -l out ($bin __complete -- $args $cur 2>/dev/null)
    or return
    set -l directive (string replace -r '^:' '' -- $out[-1])
    set -e out[-1]
    if test (math "$directive % 2") -eq 1
        return
    end
    if test (math "floor($directive / 8) % 2") -eq 1
        for ext in $out
            __fish_complete_suffix .$ext
        end
        return
    end
    if test (math "floor($directive / 16) % 2") -eq 1
        __fish_complete_directories $cur
        return
    end
    set -l prefix ''
    if string match -qr -- '^-[^=]*=' $cur
        set prefix (string replace -r '=.*' '=' -- $cur)
    end
    for line in $out
        echo $prefix$line
    end
    if test (count $out) -eq 0; and test (math "floor($directive / 4) % 2") -eq 0
        __fish_complete_path $cur
    end
end
complete -c kubectl-hpa -f -a '(__kubectl_hpa_complete)'
