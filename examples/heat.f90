! heat: an MPI Fortran proxy of a 1-D heat equation solver, written for
! difftrace's mutation tests. It is a normal program with no bug of its own:
! the tests take its traces as they are and plant the faults themselves
! (internal/mutation).
!
! Module procedures (grid::init_field, halo::exchange, solver::sweep, ...)
! make the time step: a halo exchange with mpi_sendrecv, a few Jacobi sweeps
! each followed by the boundary conditions, a residual reduced with
! mpi_allreduce, and every other step a checkpoint of the norms.
!
!   mpirun -np 4 ./heat [steps]
module grid
  implicit none
  integer, parameter :: n = 64
contains
  subroutine init_field(u, rank)
    double precision, intent(out) :: u(0:n+1)
    integer, intent(in) :: rank
    integer :: i
    do i = 0, n + 1
      u(i) = sin(dble(i + rank * n) * 0.05d0)
    end do
  end subroutine init_field
end module grid

module halo
  use mpi
  use grid
  implicit none
contains
  subroutine exchange(u, rank, nprocs)
    double precision, intent(inout) :: u(0:n+1)
    integer, intent(in) :: rank, nprocs
    integer :: left, right, ierr
    left = mod(rank + nprocs - 1, nprocs)
    right = mod(rank + 1, nprocs)
    call mpi_sendrecv(u(n), 1, MPI_DOUBLE_PRECISION, right, 0, &
                      u(0), 1, MPI_DOUBLE_PRECISION, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call mpi_sendrecv(u(1), 1, MPI_DOUBLE_PRECISION, left, 1, &
                      u(n+1), 1, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end subroutine exchange
end module halo

module solver
  use mpi
  use grid
  implicit none
contains
  subroutine sweep(u, v)
    double precision, intent(inout) :: u(0:n+1), v(0:n+1)
    integer :: i
    do i = 1, n
      v(i) = 0.5d0 * u(i) + 0.25d0 * (u(i-1) + u(i+1))
    end do
    call copy_back(u, v)
  end subroutine sweep

  subroutine copy_back(u, v)
    double precision, intent(inout) :: u(0:n+1)
    double precision, intent(in) :: v(0:n+1)
    u(1:n) = v(1:n)
  end subroutine copy_back

  subroutine boundary(u)
    double precision, intent(inout) :: u(0:n+1)
    u(1) = 0.5d0 * (u(1) + u(2))
    u(n) = 0.5d0 * (u(n) + u(n-1))
  end subroutine boundary

  double precision function residual(u)
    double precision, intent(in) :: u(0:n+1)
    double precision :: local
    integer :: i, ierr
    local = 0
    do i = 1, n
      local = local + abs(u(i-1) - 2 * u(i) + u(i+1))
    end do
    call mpi_allreduce(local, residual, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end function residual
end module solver

module checkpoint
  use mpi
  use grid
  implicit none
contains
  subroutine norms(u, rank)
    double precision, intent(in) :: u(0:n+1)
    integer, intent(in) :: rank
    double precision :: l2, total
    integer :: ierr
    l2 = sum(u(1:n) ** 2)
    call mpi_reduce(l2, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) call write_norm(total)
  end subroutine norms

  subroutine write_norm(x)
    double precision, intent(in) :: x
    if (x < 0) print *, 'negative norm', x
  end subroutine write_norm
end module checkpoint

program heat
  use mpi
  use grid
  use halo
  use solver
  use checkpoint
  implicit none
  double precision :: u(0:n+1), v(0:n+1), r
  integer :: rank, nprocs, ierr, step, k, steps
  character(len=16) :: arg

  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
  steps = 20
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  call init_field(u, rank)
  v = u
  do step = 1, steps
    call exchange(u, rank, nprocs)
    do k = 1, 4
      call sweep(u, v)
      call boundary(u)
    end do
    r = residual(u)
    if (mod(step, 2) == 0) call norms(u, rank)
  end do
  if (rank == 0) print '(a, es12.5)', 'residual ', r
  call mpi_finalize(ierr)
end program heat
