# bash completion for kubectl-hpa: `source <(kubectl hpa completion bash)`.
#
# Every completion asks the binary (`kubectl-hpa __complete -- WORDS...`, the protocol kubectl
# uses for `kubectl hpa <TAB>`), so HPA names come from the cluster or from the --snapshot file
# on the line, and the script never goes stale. Answer: `value<TAB>description` lines, then
# `:DIRECTIVE` (Cobra's bits: 1 error, 2 no space, 4 no file names, 8 file extensions,
# 16 directories, 32 keep the order).
_kubectl_hpa() {
    local line=${COMP_LINE:0:COMP_POINT}
    local -a words
    read -ra words <<< "$line"
    [[ $line == *[[:space:]] ]] && words+=("")
    local cur=${words[${#words[@]}-1]}
    local out
    out=$("${words[0]}" __complete -- "${words[@]:1}" 2>/dev/null) || return
    local directive=${out##*:}
    out=${out%:*}
    (( directive & 1 )) && return
    # bash splits `--output=j` at `=`: give back what bash's own word lacks.
    local word=${COMP_WORDS[COMP_CWORD]} prefix=""
    if [[ $cur == -*=* ]]; then
        if [[ $word == "=" ]]; then prefix="="; elif [[ $word == "$cur" ]]; then prefix=${cur%%=*}=; fi
        cur=${cur#*=}
    fi
    (( directive & 2 )) && compopt -o nospace 2>/dev/null
    (( directive & 32 )) && compopt -o nosort 2>/dev/null
    COMPREPLY=()
    local c
    if (( directive & 8 )); then
        compopt -o filenames 2>/dev/null
        while IFS= read -r c; do
            COMPREPLY+=("${c%%$'\t'*}")
        done < <(compgen -d -- "$cur"; while IFS= read -r ext; do
            [[ -n $ext ]] && compgen -f -X "!*.${ext%%$'\t'*}" -- "$cur"
        done <<< "$out")
        return
    fi
    if (( directive & 16 )); then
        compopt -o filenames 2>/dev/null
        while IFS= read -r c; do COMPREPLY+=("$c"); done < <(compgen -d -- "$cur")
        return
    fi
    while IFS= read -r c; do
        [[ -n $c ]] && COMPREPLY+=("$prefix${c%%$'\t'*}")
    done <<< "$out"
    if (( ${#COMPREPLY[@]} == 0 )) && ! (( directive & 4 )); then
        compopt -o filenames 2>/dev/null
        while IFS= read -r c; do COMPREPLY+=("$c"); done < <(compgen -f -- "$cur")
    fi
}
complete -F _kubectl_hpa kubectl-hpa
