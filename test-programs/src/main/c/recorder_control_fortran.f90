! recorder_control_fortran.f90 -- omp_control_tool from Fortran against the jompd-recorder.
!
! OpenMP 5.1 gives Fortran's omp_control_tool no arg argument: the runtime passes the tool NULL.
! gfortran 12's omp_lib has no omp_control_tool, so the interface is declared here as LLVM's
! omp_lib declares it (bind(C) to omp_control_tool, arg optional and left out: NULL).
! Sequence (facts control.<i>.command/.modifier/.result/.phase, control.count), the same commands
! and phases as recorder_control.c minus the messages: start before any parallel region
! (before_init), then after one: start, pause, flush, mark (64, no arg), snapshot (65, no arg),
! command 99, end, then start, mark (after_end). The initial thread then calls the marker.
program recorder_control_fortran
  use omp_lib
  use iso_c_binding
  implicit none

  interface
    integer(c_int) function omp_control_tool(command, modifier, arg) bind(C, name="omp_control_tool")
      import :: c_int, c_intptr_t
      integer(c_int), value :: command
      integer(c_int), value :: modifier
      integer(c_intptr_t), optional :: arg
    end function
    subroutine jompd_marker() bind(C, name="jompd_marker")
    end subroutine
    subroutine fx_f_init(fixture) bind(C, name="fx_f_init")
      import :: c_char
      character(kind=c_char), dimension(*), intent(in) :: fixture
    end subroutine
    subroutine fx_f_thread_facts(k, role) bind(C, name="fx_f_thread_facts")
      import :: c_int, c_char
      integer(c_int), value :: k
      character(kind=c_char), dimension(*), intent(in) :: role
    end subroutine
    subroutine fx_f_put_int(key, val) bind(C, name="fx_f_put_int")
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: key
      integer(c_int), value :: val
    end subroutine
    subroutine fx_f_write_facts(marker_k) bind(C, name="fx_f_write_facts")
      import :: c_int
      integer(c_int), value :: marker_k
    end subroutine
    subroutine fx_f_ok(checksum) bind(C, name="fx_f_ok")
      import :: c_long_long
      integer(c_long_long), value :: checksum
    end subroutine
  end interface

  integer :: count, ran

  call fx_f_init("recorder_control_fortran" // c_null_char)
  call omp_set_dynamic(.false.)
  count = 0
  ran = 0
  call command(0, 1, 0)
  !$omp parallel num_threads(2) reduction(+:ran)
  ran = ran + 1
  !$omp end parallel
  call command(1, 1, 0)
  call command(1, 2, 0)
  call command(1, 3, 0)
  call command(1, 64, 7)
  call command(1, 65, 8)
  call command(1, 99, 0)
  call command(1, 4, 0)
  call command(2, 1, 0)
  call command(2, 64, 9)
  call fx_f_put_int("control.count" // c_null_char, int(count, c_int))
  call fx_f_thread_facts(0_c_int, "marker" // c_null_char)
  call fx_f_write_facts(0_c_int)
  call jompd_marker()
  call fx_f_ok(int(ran, c_long_long))

contains

  ! phase: 0 before_init, 1 active, 2 after_end (recorded as control.<i>.phase_code)
  subroutine command(phase, cmd, modifier)
    integer, intent(in) :: phase, cmd, modifier
    integer(c_int) :: result
    character(len=64) :: key
    result = omp_control_tool(int(cmd, c_int), int(modifier, c_int))
    write (key, '(a,i0,a)') "control.", count, ".command"
    call fx_f_put_int(trim(key) // c_null_char, int(cmd, c_int))
    write (key, '(a,i0,a)') "control.", count, ".modifier"
    call fx_f_put_int(trim(key) // c_null_char, int(modifier, c_int))
    write (key, '(a,i0,a)') "control.", count, ".result"
    call fx_f_put_int(trim(key) // c_null_char, result)
    write (key, '(a,i0,a)') "control.", count, ".phase_code"
    call fx_f_put_int(trim(key) // c_null_char, int(phase, c_int))
    count = count + 1
  end subroutine

end program recorder_control_fortran
