# bash completion for rocmcheck(1)                         -*- shell-script -*-
#
# Installed as share/bash-completion/completions/rocmcheck, where
# bash-completion loads it the first time rocmcheck is completed; without
# bash-completion, source it from ~/.bashrc.
#
# Every word comes from the binary being completed: `rocmcheck help --words`
# lists the commands and the global options, `rocmcheck help --words COMMAND`
# the options after COMMAND, each with its value's name and the values known,
# and `rocmcheck checks` the check and probe IDs. This file names no option,
# so it offers what the option rows of that binary parse. What it knows
# itself is how to complete a value by its name (DIR, FILE, ID) and what the
# arguments of probe, profiles, help, diff and fleet are.

# _rocmcheck_load [COMMAND]: read `help --words` into `opt_argh` (an
# option's value's name, empty for a flag) and `opt_values`, and the words
# that are not options (the commands) into `cmds`; the caller's locals.
_rocmcheck_load()
{
	local line name rest
	while IFS= read -r line; do
		name=${line%% *}
		rest=
		[[ $line == *' '* ]] && rest=${line#* }
		if [[ $name != -* ]]; then
			cmds+=("$name")
			continue
		fi
		opt_argh[$name]=${rest%% *}
		opt_values[$name]=
		[[ $rest == *' '* ]] && opt_values[$name]=${rest#* }
		opt_names+=("$name")
	done < <(_rocmcheck_run help --words "$@")
}

# _rocmcheck_run ARGS...: the binary being completed (`bin`), with the
# --profiles DIR of the command line, errors dropped.
_rocmcheck_run()
{
	"$bin" ${profiles:+--profiles "$profiles"} "$@" 2>/dev/null
}

# _rocmcheck_reply PREFIX WORD...: the WORDs that start with `cur`, in any
# case ("RX" finds rx7900xtx: the GPU slugs are lower case), each written
# after PREFIX (what stands before `cur` in the word: "--level=", "gemm,").
_rocmcheck_reply()
{
	local prefix=$1 want=${cur,,} w
	local -a all
	shift
	read -r -d '' -a all <<<"$*"
	COMPREPLY=()
	for w in "${all[@]}"; do
		[[ ${w,,} == "$want"* ]] && COMPREPLY+=("$prefix$w")
	done
	# "fedora-" needs its release typed after it
	if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *- ]]; then
		compopt -o nospace 2>/dev/null
	fi
}

# _rocmcheck_files -d|-f: directories or files that start with `cur`.
_rocmcheck_files()
{
	compopt -o filenames 2>/dev/null
	mapfile -t COMPREPLY < <(compgen "$1" -- "$cur")
}

# _rocmcheck_ids [probe]: the check and probe IDs, or with "probe" the probe
# names `rocmcheck probe` takes (an ID without "probe.", or its first part).
_rocmcheck_ids()
{
	_rocmcheck_run checks | awk -v probe="${1-}" 'NR > 1 && NF {
		if (!probe) { print $1; next }
		if ($2 != "probe") next
		sub(/^probe\./, "", $1)
		if (split($1, part, ".") > 1 && !seen[part[1]]++) print part[1]
		if (!seen[$1]++) print $1
	}'
}

# _rocmcheck_value OPTION PREFIX: complete `cur`, the value of OPTION, by
# the values the binary knows, else by the value's name.
_rocmcheck_value()
{
	local argh=${opt_argh[$1]-} values=${opt_values[$1]-} prefix=$2
	# a list (ID[,ID...]): complete the item after the last comma
	if [[ $argh == *,* && $cur == *,* ]]; then
		prefix+=${cur%,*},
		cur=${cur##*,}
	fi
	if [[ -n $values ]]; then
		# shellcheck disable=SC2086 # the values are words
		_rocmcheck_reply "$prefix" $values
		return
	fi
	case $argh in
	DIR) _rocmcheck_files -d ;;
	FILE) _rocmcheck_files -f ;;
	ID | ID\[*) _rocmcheck_reply "$prefix" "$(_rocmcheck_ids)" ;;
	esac
}

# _rocmcheck_arg: complete `cur`, an argument of `cmd` after the arguments
# `args`.
_rocmcheck_arg()
{
	case $cmd in
	'') _rocmcheck_reply "" "${cmds[*]}" ;;
	help) [[ ${#args[@]} -eq 0 ]] && _rocmcheck_reply "" "${cmds[*]}" ;;
	probe) _rocmcheck_reply "" "$(_rocmcheck_ids probe)" ;;
	diff | fleet) _rocmcheck_files -f ;;
	profiles)
		if [[ ${#args[@]} -eq 0 ]]; then
			_rocmcheck_reply "" "list show validate update"
		elif [[ ${args[0]} == validate && ${#args[@]} -eq 1 ]]; then
			_rocmcheck_files -d
		fi
		;;
	esac
}

_rocmcheck()
{
	local cur=${COMP_WORDS[COMP_CWORD]} bin=${COMP_WORDS[0]} profiles=
	local cmd='' pending='' dashdash='' i a name
	local -a cmds=() opt_names=() args=() words=()
	local -A opt_argh=() opt_values=()
	COMPREPLY=()
	[[ $bin == \~/* ]] && bin=$HOME/${bin#\~/}
	[[ $bin == */* && -x $bin ]] || bin=rocmcheck

	# the words before `cur`, "--opt" "=" "value" joined again (COMP_WORDBREAKS
	# holds "="); "--opt" "=" before `cur` makes `cur` that option's value
	for ((i = 1; i < COMP_CWORD; i++)); do
		a=${COMP_WORDS[i]}
		if [[ $a == = && ${#words[@]} -gt 0 && ${words[-1]} == --* ]]; then
			words[-1]+='='
		elif [[ ${#words[@]} -gt 0 && ${words[-1]} == --*= ]]; then
			words[-1]+=$a
		else
			words+=("$a")
		fi
	done
	if [[ $cur == = && ${#words[@]} -gt 0 && ${words[-1]} == --* ]]; then
		words[-1]+='='
		cur=
	fi
	local eqopt=
	if [[ ${#words[@]} -gt 0 && ${words[-1]} == --*= ]]; then
		eqopt=${words[-1]%=}
		unset 'words[-1]'
	fi

	_rocmcheck_load
	# what the words before `cur` are: global options, the command, its
	# options and arguments; an option that takes a value takes the next word
	for a in "${words[@]}"; do
		if [[ -n $pending ]]; then
			[[ $pending == --profiles ]] && profiles=$a
			pending=
		elif [[ -z $dashdash && $a == -- ]]; then
			dashdash=1
		elif [[ -z $dashdash && $a == --* ]]; then
			name=${a%%=*}
			[[ $a == *=* && $name == --profiles ]] && profiles=${a#*=}
			[[ $a != *=* && -n ${opt_argh[$name]-} ]] && pending=$name
		elif [[ -z $dashdash && $a == -?* ]]; then
			# -qv, -oFILE, -o FILE: the first letter that takes a value ends it
			for ((i = 1; i < ${#a}; i++)); do
				if [[ -n ${opt_argh[-${a:i:1}]-} ]]; then
					((i == ${#a} - 1)) && pending=-${a:i:1}
					break
				fi
			done
		elif [[ -z $cmd ]]; then
			# the command's rows and the global rows it takes replace the
			# global rows before it
			cmd=$a
			opt_names=()
			opt_argh=()
			opt_values=()
			_rocmcheck_load "$cmd"
		else
			args+=("$a")
		fi
	done

	if [[ -n $eqopt ]]; then
		[[ -n ${opt_argh[$eqopt]-} ]] && _rocmcheck_value "$eqopt" ""
	elif [[ -n $pending ]]; then
		_rocmcheck_value "$pending" ""
	elif [[ -z $dashdash && $cur == --*=* ]]; then
		# "--level=qu" in one word: "=" is not in COMP_WORDBREAKS
		name=${cur%%=*}
		cur=${cur#*=}
		[[ -n ${opt_argh[$name]-} ]] && _rocmcheck_value "$name" "$name="
	elif [[ -z $dashdash && $cur == -* ]]; then
		_rocmcheck_reply "" "${opt_names[*]}"
	else
		_rocmcheck_arg
	fi
	return 0
}

complete -F _rocmcheck rocmcheck
